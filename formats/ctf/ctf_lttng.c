/*
 * LTTng-UST function traces (liblttng-ust-cyg-profile and its -fast
 * variant): function addresses are turned into model functions, and once
 * the whole trace is read, named from the traced binaries' symbol tables.
 *
 * Addresses are run-time addresses (PIE, ASLR): the statedump's bin_info
 * events (and lttng_ust_dl / lttng_ust_lib load events) say where each
 * binary was loaded in each process, as babeltrace2's debug-info filter
 * uses them. The binary is looked for under --sysroot first, then at its
 * recorded path; symbols come from .symtab (or .dynsym) through libelf.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mapfile.h"
#include "xalloc.h"
#include "ctf_lttng.h"

struct bin {
	int64_t vpid;
	uint64_t baddr, memsz;
	char *path;
	bool is_pic;
	/* loaded lazily */
	bool loaded, ok;
	bool used;		/* an address of the trace fell in it */
	char *why;		/* why it could not be read, or NULL */
	uint64_t min_vaddr;
	struct sym *syms;
	size_t nsyms;
	char *strs;		/* names, one block */
};

struct sym {
	uint64_t addr, size;
	uint32_t name;		/* offset in strs */
};

struct addr_func {
	int64_t vpid;
	uint64_t addr;
	func_id f;		/* plus one; 0: empty */
	bool named;
};

struct ctf_lttng {
	char *sysroot;
	VEC(struct bin) bins;
	/* (vpid, addr) -> func: open addressing */
	struct addr_func *map;
	size_t nmap, capmap;
};

struct ctf_lttng *
ctf_lttng_new(const char *sysroot)
{
	struct ctf_lttng *l = xcalloc(1, sizeof *l);
	if (sysroot != NULL)
		l->sysroot = xstrdup(sysroot);
	return l;
}

void
ctf_lttng_free(struct ctf_lttng *l)
{
	if (l == NULL)
		return;
	for (size_t i = 0; i < l->bins.len; i++) {
		free(l->bins.items[i].path);
		free(l->bins.items[i].why);
		free(l->bins.items[i].syms);
		free(l->bins.items[i].strs);
	}
	VEC_FREE(&l->bins);
	free(l->map);
	free(l->sysroot);
	free(l);
}

void
ctf_lttng_bin(struct ctf_lttng *l, int64_t vpid, uint64_t baddr,
    uint64_t memsz, const char *path, size_t pathlen, bool is_pic)
{
	for (size_t i = 0; i < l->bins.len; i++) {
		struct bin *b = &l->bins.items[i];
		if (b->vpid == vpid && b->baddr == baddr)
			return;
	}
	struct bin nb = { .vpid = vpid, .baddr = baddr, .memsz = memsz,
	    .path = xstrndup(path, pathlen), .is_pic = is_pic };
	VEC_PUSH(&l->bins, nb);
}

static uint64_t
hash2(int64_t a, uint64_t b)
{
	uint64_t h = (uint64_t)a * 0x9E3779B97F4A7C15u ^ b;
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdu;
	h ^= h >> 33;
	return h;
}

static void
map_grow(struct ctf_lttng *l)
{
	size_t nc = l->capmap ? l->capmap * 2 : 1024;
	struct addr_func *n = xcalloc(nc, sizeof *n);
	for (size_t i = 0; i < l->capmap; i++) {
		struct addr_func *e = &l->map[i];
		if (e->f == 0)
			continue;
		size_t j = hash2(e->vpid, e->addr) & (nc - 1);
		while (n[j].f != 0)
			j = (j + 1) & (nc - 1);
		n[j] = *e;
	}
	free(l->map);
	l->map = n;
	l->capmap = nc;
}

static bool symbolize(struct ctf_lttng *l, int64_t vpid, uint64_t addr,
    char *buf, size_t size, const char **binpath);
static const char *base_name(const char *p);

func_id
ctf_lttng_func(struct ctf_lttng *l, struct builder *b, int64_t vpid,
    uint64_t addr)
{
	if ((l->nmap + 1) * 2 > l->capmap)
		map_grow(l);
	size_t j = hash2(vpid, addr) & (l->capmap - 1);
	while (l->map[j].f != 0) {
		if (l->map[j].vpid == vpid && l->map[j].addr == addr)
			return l->map[j].f - 1;
		j = (j + 1) & (l->capmap - 1);
	}
	/* named now when the statedump already said where the binary is
	 * (the usual case); otherwise a placeholder renamed at the end */
	char name[512];
	const char *bin = NULL;
	func_id f;
	if (symbolize(l, vpid, addr, name, sizeof name, &bin)) {
		f = builder_func(b, builder_intern_cstr(b, name),
		    builder_intern_cstr(b, base_name(bin)), (int64_t)addr);
		l->map[j].named = true;
	} else {
		snprintf(name, sizeof name, "0x%llx", (unsigned long long)addr);
		f = builder_func(b, builder_intern_cstr(b, name), 0,
		    (int64_t)addr);
	}
	l->map[j].vpid = vpid;
	l->map[j].addr = addr;
	l->map[j].f = f + 1;
	l->nmap++;
	return f;
}

static int
cmp_sym(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Opens a binary named by the trace: a regular file only, and never
 * waiting (the path comes from the trace, and could name a FIFO). */
static int
open_binary(const char *path, char **why)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);

	if (fd < 0) {
		*why = xstrdup(strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		*why = xstrdup("not a regular file");
		close(fd);
		return -1;
	}
	mapfile_note(path, fd);
	return fd;
}

static void
load_bin(struct ctf_lttng *l, struct bin *bn)
{
	bn->loaded = true;
	int fd = -1;
	if (l->sysroot != NULL) {
		char *p = xasprintf("%s/%s", l->sysroot, bn->path);
		fd = open_binary(p, &bn->why);
		free(p);
	}
	if (fd < 0) {
		free(bn->why);
		bn->why = NULL;
		fd = open_binary(bn->path, &bn->why);
	}
	if (fd < 0)
		return;
	if (elf_version(EV_CURRENT) == EV_NONE) {
		bn->why = xstrdup("libelf is out of date");
		close(fd);
		return;
	}
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	if (e == NULL || elf_kind(e) != ELF_K_ELF) {
		bn->why = xstrdup("not an ELF file");
		if (e != NULL)
			elf_end(e);
		close(fd);
		return;
	}
	size_t nph;
	bn->min_vaddr = UINT64_MAX;
	if (elf_getphdrnum(e, &nph) == 0)
		for (size_t i = 0; i < nph; i++) {
			GElf_Phdr ph;
			if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD &&
			    ph.p_vaddr < bn->min_vaddr)
				bn->min_vaddr = ph.p_vaddr & ~(uint64_t)0xfff;
		}
	if (bn->min_vaddr == UINT64_MAX)
		bn->min_vaddr = 0;
	VEC(struct sym) syms = { 0 };
	VEC(char) strs = { 0 };
	for (int pass = 0; pass < 2 && syms.len == 0; pass++) {
		Elf_Scn *scn = NULL;
		while ((scn = elf_nextscn(e, scn)) != NULL) {
			GElf_Shdr sh;
			if (gelf_getshdr(scn, &sh) == NULL)
				continue;
			if (sh.sh_type != (pass == 0 ? SHT_SYMTAB : SHT_DYNSYM))
				continue;
			Elf_Data *data = elf_getdata(scn, NULL);
			if (data == NULL || sh.sh_entsize == 0)
				continue;
			size_t n = sh.sh_size / sh.sh_entsize;
			for (size_t i = 0; i < n; i++) {
				GElf_Sym s;
				if (gelf_getsym(data, (int)i, &s) == NULL)
					continue;
				if (GELF_ST_TYPE(s.st_info) != STT_FUNC ||
				    s.st_value == 0 || s.st_shndx == SHN_UNDEF)
					continue;
				const char *nm = elf_strptr(e, sh.sh_link,
				    s.st_name);
				if (nm == NULL || *nm == '\0')
					continue;
				size_t nl = strlen(nm);
				VEC_RESERVE(&strs, nl + 1);
				struct sym sy = { s.st_value, s.st_size,
				    (uint32_t)strs.len };
				memcpy(strs.items + strs.len, nm, nl + 1);
				strs.len += nl + 1;
				VEC_PUSH(&syms, sy);
			}
		}
	}
	elf_end(e);
	close(fd);
	if (syms.len)
		xqsort(syms.items, syms.len, sizeof *syms.items, cmp_sym);
	bn->syms = syms.items;
	bn->nsyms = syms.len;
	bn->strs = strs.items;
	bn->ok = true;
}

static const char *
base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

/* The name of addr in process vpid into buf; false if unknown. */
static bool
symbolize(struct ctf_lttng *l, int64_t vpid, uint64_t addr, char *buf,
    size_t size, const char **binpath)
{
	struct bin *bn = NULL;
	for (size_t i = 0; i < l->bins.len; i++) {
		struct bin *c = &l->bins.items[i];
		if (c->vpid == vpid && addr >= c->baddr &&
		    addr - c->baddr < c->memsz) {
			bn = c;
			break;
		}
	}
	if (bn == NULL)
		return false;
	if (!bn->loaded)
		load_bin(l, bn);
	bn->used = true;
	*binpath = bn->path;
	uint64_t off = bn->is_pic ? addr - bn->baddr + bn->min_vaddr : addr;
	if (bn->ok && bn->nsyms > 0) {
		size_t lo = 0, hi = bn->nsyms;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			if (bn->syms[mid].addr <= off)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo > 0) {
			const struct sym *s = &bn->syms[lo - 1];
			if (off < s->addr + (s->size ? s->size : 1)) {
				if (off == s->addr)
					snprintf(buf, size, "%s",
					    bn->strs + s->name);
				else
					snprintf(buf, size, "%s+0x%llx",
					    bn->strs + s->name,
					    (unsigned long long)(off - s->addr));
				return true;
			}
		}
	}
	snprintf(buf, size, "%s+0x%llx", base_name(bn->path),
	    (unsigned long long)(addr - bn->baddr));
	return true;
}

size_t
ctf_lttng_finish(struct ctf_lttng *l, struct builder *b)
{
	size_t named = 0;
	for (size_t i = 0; i < l->capmap; i++) {
		struct addr_func *e = &l->map[i];
		if (e->f == 0 || e->named)
			continue;
		char name[512];
		const char *bin;
		if (symbolize(l, e->vpid, e->addr, name, sizeof name, &bin)) {
			builder_func_rename(b, e->f - 1,
			    builder_intern_cstr(b, name));
			named++;
		}
	}
	/* Say which binaries were missing: their functions show as
	 * file+offset, and --sysroot may be all it takes. */
	for (size_t i = 0; i < l->bins.len; i++) {
		struct bin *bn = &l->bins.items[i];
		if (!bn->used || bn->ok)
			continue;
		builder_note(b, DIAG_WARNING, "cyg-profile: cannot read binary "
		    "%s%s%s (%s): its functions are shown as file+offset; "
		    "--sysroot DIR looks for it under DIR", bn->path,
		    l->sysroot ? " under " : "", l->sysroot ? l->sysroot : "",
		    bn->why ? bn->why : "no symbols");
		/* One binary is reported once, whatever the processes. */
		for (size_t j = i + 1; j < l->bins.len; j++)
			if (strcmp(l->bins.items[j].path, bn->path) == 0)
				l->bins.items[j].used = false;
	}
	return named;
}

size_t
ctf_lttng_nfuncs(const struct ctf_lttng *l)
{
	return l->nmap;
}
