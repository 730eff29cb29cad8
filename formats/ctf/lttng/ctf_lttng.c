/*
 * LTTng-UST function traces (liblttng-ust-cyg-profile and its -fast
 * variant): function addresses are turned into model functions, and once
 * the whole trace is read, named from the traced binaries' symbol tables.
 *
 * Addresses are run-time addresses (PIE, ASLR): the statedump's bin_info
 * events (and lttng_ust_dl / lttng_ust_lib load events) say where each
 * binary was loaded in each process, as babeltrace2's debug-info filter
 * uses them. The binary is looked for under --sysroot first, then at its
 * recorded path; symbols come from .symtab (or .dynsym) through libelf,
 * once per file however many processes loaded it. A binary is found by
 * (process, load address) in a hash and an address's binary in disjoint
 * pieces (ctf_spans.h): a statedump of many processes and binaries costs
 * in proportion to its events.
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

#include "blob.h"
#include "hashmap.h"
#include "mapfile.h"
#include "xalloc.h"
#include "ctf_lttng.h"
#include "ctf_spans.h"

/* A binary file, read once however many processes loaded it. */
struct image {
	char *path;
	uint32_t next;		/* the next image of the same hash + 1 */
	bool loaded, ok;	/* read lazily */
	bool reported;		/* said to be unreadable */
	char *why;		/* why it could not be read, or NULL */
	char *file;		/* the file read (under --sysroot?), or NULL */
	uint64_t min_vaddr;
	struct sym *syms;
	size_t nsyms;
	char *strs;		/* names, one block */
};

/* A binary loaded in a process. */
struct bin {
	int64_t vpid;
	uint64_t baddr, memsz;
	uint32_t image;
	bool is_pic;
	bool used;		/* an address of the trace fell in it */
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
	struct hashmap bin_of;	/* (vpid, baddr) -> bin: the first kept */
	/* which bin each address of a process falls in: the first loaded
	 * over it */
	struct ctf_spans spans;
	VEC(struct image) images;
	uint32_t *image_of;	/* path hash -> image + 1, chained */
	size_t nimage_of;	/* 0 or a power of two */
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
	ctf_spans_init(&l->spans);
	return l;
}

void
ctf_lttng_free(struct ctf_lttng *l)
{
	if (l == NULL)
		return;
	for (size_t i = 0; i < l->images.len; i++) {
		free(l->images.items[i].path);
		free(l->images.items[i].why);
		free(l->images.items[i].file);
		free(l->images.items[i].syms);
		free(l->images.items[i].strs);
	}
	VEC_FREE(&l->images);
	free(l->image_of);
	VEC_FREE(&l->bins);
	hashmap_free(&l->bin_of);
	ctf_spans_free(&l->spans);
	free(l->map);
	free(l->sysroot);
	free(l);
}

static uint64_t
hash_path(const char *p)
{
	uint64_t h = 0xcbf29ce484222325u;	/* FNV-1a */
	for (; *p != '\0'; p++)
		h = (h ^ (unsigned char)*p) * 0x100000001b3u;
	return h;
}

/* The image of a path, made if new. */
static uint32_t
image_of(struct ctf_lttng *l, const char *path, size_t pathlen)
{
	char *p = xstrndup(path, pathlen);
	if ((l->images.len + 1) * 2 > l->nimage_of) {
		/* rehash into twice the heads */
		free(l->image_of);
		l->nimage_of = l->nimage_of ? l->nimage_of * 2 : 64;
		l->image_of = xcalloc(l->nimage_of, sizeof *l->image_of);
		for (size_t i = 0; i < l->images.len; i++) {
			struct image *im = &l->images.items[i];
			size_t h = hash_path(im->path) & (l->nimage_of - 1);
			im->next = l->image_of[h];
			l->image_of[h] = (uint32_t)i + 1;
		}
	}
	size_t h = hash_path(p) & (l->nimage_of - 1);
	for (uint32_t i = l->image_of[h]; i != 0;
	    i = l->images.items[i - 1].next)
		if (strcmp(l->images.items[i - 1].path, p) == 0) {
			free(p);
			return i - 1;
		}
	struct image im = { .path = p, .next = l->image_of[h] };
	VEC_PUSH(&l->images, im);
	l->image_of[h] = (uint32_t)l->images.len;
	return (uint32_t)l->images.len - 1;
}

void
ctf_lttng_bin(struct ctf_lttng *l, int64_t vpid, uint64_t baddr,
    uint64_t memsz, const char *path, size_t pathlen, bool is_pic)
{
	uint32_t known;
	if (hashmap_get(&l->bin_of, (uint64_t)vpid, baddr, &known))
		return;
	struct bin nb = { .vpid = vpid, .baddr = baddr, .memsz = memsz,
	    .image = image_of(l, path, pathlen), .is_pic = is_pic };
	uint32_t i = (uint32_t)l->bins.len;
	VEC_PUSH(&l->bins, nb);
	hashmap_put(&l->bin_of, (uint64_t)vpid, baddr, i);
	ctf_spans_add(&l->spans, vpid, baddr, memsz, i);
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
static void func_addr(struct ctf_lttng *l, struct builder *b, func_id f,
    int64_t vpid, uint64_t addr);
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
		func_addr(l, b, f, vpid, addr);
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
load_image(struct ctf_lttng *l, struct image *im)
{
	im->loaded = true;
	int fd = -1;
	if (l->sysroot != NULL) {
		char *p = xasprintf("%s/%s", l->sysroot, im->path);
		fd = open_binary(p, &im->why);
		if (fd >= 0)
			im->file = p;
		else
			free(p);
	}
	if (fd < 0) {
		free(im->why);
		im->why = NULL;
		fd = open_binary(im->path, &im->why);
		if (fd >= 0)
			im->file = xstrdup(im->path);
	}
	if (fd < 0)
		return;
	if (elf_version(EV_CURRENT) == EV_NONE) {
		im->why = xstrdup("libelf is out of date");
		close(fd);
		return;
	}
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	if (e == NULL || elf_kind(e) != ELF_K_ELF) {
		im->why = xstrdup("not an ELF file");
		if (e != NULL)
			elf_end(e);
		close(fd);
		return;
	}
	size_t nph;
	im->min_vaddr = UINT64_MAX;
	if (elf_getphdrnum(e, &nph) == 0)
		for (size_t i = 0; i < nph; i++) {
			GElf_Phdr ph;
			if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD &&
			    ph.p_vaddr < im->min_vaddr)
				im->min_vaddr = ph.p_vaddr & ~(uint64_t)0xfff;
		}
	if (im->min_vaddr == UINT64_MAX)
		im->min_vaddr = 0;
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
	im->syms = syms.items;
	im->nsyms = syms.len;
	im->strs = strs.items;
	im->ok = true;
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
	uint32_t bi;
	if (!ctf_spans_find(&l->spans, vpid, addr, &bi))
		return false;
	struct bin *b = &l->bins.items[bi];
	struct image *im = &l->images.items[b->image];
	if (!im->loaded)
		load_image(l, im);
	b->used = true;
	*binpath = im->path;
	uint64_t off = b->is_pic ? addr - b->baddr + im->min_vaddr : addr;
	if (im->ok && im->nsyms > 0) {
		size_t lo = 0, hi = im->nsyms;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			if (im->syms[mid].addr <= off)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo > 0) {
			const struct sym *s = &im->syms[lo - 1];
			if (off < s->addr + (s->size ? s->size : 1)) {
				if (off == s->addr)
					snprintf(buf, size, "%s",
					    im->strs + s->name);
				else
					snprintf(buf, size, "%s+0x%llx",
					    im->strs + s->name,
					    (unsigned long long)(off - s->addr));
				return true;
			}
		}
	}
	snprintf(buf, size, "%s+0x%llx", base_name(im->path),
	    (unsigned long long)(addr - b->baddr));
	return true;
}

/* Where function f's code is in the binary it was named from (its
 * source line is looked up there): the address as the binary has it. */
static void
func_addr(struct ctf_lttng *l, struct builder *b, func_id f, int64_t vpid,
    uint64_t addr)
{
	uint32_t bi;
	if (!ctf_spans_find(&l->spans, vpid, addr, &bi))
		return;
	const struct bin *bn = &l->bins.items[bi];
	const struct image *im = &l->images.items[bn->image];
	if (im->ok && im->file != NULL)
		builder_func_addr(b, f, im->file, bn->is_pic ?
		    addr - bn->baddr + im->min_vaddr : addr);
}

size_t
ctf_lttng_size(const struct ctf_lttng *l)
{
	return l->nmap + l->bins.len + l->images.len;
}

size_t
ctf_lttng_finish(struct ctf_lttng *l, struct builder *b)
{
	size_t named = 0;
	/* said once per finish: a trace read as it grows is finished at
	 * each read, into a copy of its model */
	for (size_t i = 0; i < l->images.len; i++)
		l->images.items[i].reported = false;
	for (size_t i = 0; i < l->capmap; i++) {
		struct addr_func *e = &l->map[i];
		if (e->f == 0 || e->named)
			continue;
		char name[512];
		const char *bin;
		if (symbolize(l, e->vpid, e->addr, name, sizeof name, &bin)) {
			builder_func_rename(b, e->f - 1,
			    builder_intern_cstr(b, name));
			func_addr(l, b, e->f - 1, e->vpid, e->addr);
			named++;
		}
	}
	/* Say which binaries were missing: their functions show as
	 * file+offset, and --sysroot may be all it takes. */
	for (size_t i = 0; i < l->bins.len; i++) {
		const struct bin *bi = &l->bins.items[i];
		struct image *im = &l->images.items[bi->image];
		/* one binary is reported once, whatever the processes */
		if (!bi->used || im->ok || im->reported)
			continue;
		im->reported = true;
		builder_note(b, DIAG_WARNING, "cyg-profile: cannot read binary "
		    "%s%s%s (%s): its functions are shown as file+offset; "
		    "--sysroot DIR looks for it under DIR", im->path,
		    l->sysroot ? " under " : "", l->sysroot ? l->sysroot : "",
		    im->why ? im->why : "no symbols");
	}
	return named;
}

/* --- as bytes (ctf_lttng_save) --- */

void
ctf_lttng_save(const struct ctf_lttng *l, struct blob *w)
{
	blob_str(w, l->sysroot);
	blob_u64(w, l->images.len);
	for (size_t i = 0; i < l->images.len; i++) {
		const struct image *im = &l->images.items[i];
		blob_str(w, im->path);
		blob_u8(w, im->loaded);
		blob_u8(w, im->ok);
		blob_str(w, im->why);
		blob_str(w, im->file);
		blob_u64(w, im->min_vaddr);
		blob_u64(w, im->nsyms);
		for (size_t k = 0; k < im->nsyms; k++) {
			blob_u64(w, im->syms[k].addr);
			blob_u64(w, im->syms[k].size);
			blob_u32(w, im->syms[k].name);
		}
		/* the names' block: up to the end of the last name */
		size_t len = 0;
		for (size_t k = 0; k < im->nsyms; k++) {
			size_t e = im->syms[k].name +
			    strlen(im->strs + im->syms[k].name) + 1;
			if (e > len)
				len = e;
		}
		blob_array(w, im->strs, len, 1);
	}
	blob_u64(w, l->bins.len);
	for (size_t i = 0; i < l->bins.len; i++) {
		const struct bin *b = &l->bins.items[i];
		blob_i64(w, b->vpid);
		blob_u64(w, b->baddr);
		blob_u64(w, b->memsz);
		blob_u32(w, b->image);
		blob_u8(w, b->is_pic);
		blob_u8(w, b->used);
	}
	/* the table as it is laid out: the end names in its order */
	blob_u64(w, l->capmap);
	for (size_t i = 0; i < l->capmap; i++) {
		const struct addr_func *e = &l->map[i];
		blob_u32(w, e->f);
		if (e->f == 0)
			continue;
		blob_i64(w, e->vpid);
		blob_u64(w, e->addr);
		blob_u8(w, e->named);
	}
}

static bool
load_image_bytes(struct image *im, struct blob_in *in)
{
	im->loaded = blob_get_bool(in);
	im->ok = blob_get_bool(in);
	im->why = blob_get_str(in);
	im->file = blob_get_str(in);
	im->min_vaddr = blob_get_u64(in);
	im->nsyms = blob_get_count(in, 20);
	if (im->nsyms > 0)
		im->syms = xcalloc(im->nsyms, sizeof *im->syms);
	for (size_t k = 0; k < im->nsyms; k++) {
		im->syms[k].addr = blob_get_u64(in);
		im->syms[k].size = blob_get_u64(in);
		im->syms[k].name = blob_get_u32(in);
	}
	size_t len;
	im->strs = blob_get_array(in, 1, &len);
	if (in->bad || (im->nsyms > 0 && (len == 0 || im->strs[len - 1])))
		return false;
	for (size_t k = 0; k < im->nsyms; k++)
		if (im->syms[k].name >= len || (k > 0 &&
		    im->syms[k].addr < im->syms[k - 1].addr))
			return false;
	/* symbols only where they were read, and read only once */
	if (!im->loaded)
		return !im->ok && im->nsyms == 0 && im->why == NULL &&
		    im->file == NULL && im->strs == NULL;
	return im->ok || im->nsyms == 0;
}

bool
ctf_lttng_load(struct ctf_lttng *l, const struct builder *b,
    struct blob_in *in)
{
	char *sysroot = blob_get_str(in);
	bool same = (sysroot == NULL) == (l->sysroot == NULL) &&
	    (sysroot == NULL || strcmp(sysroot, l->sysroot) == 0);
	free(sysroot);
	if (!same || in->bad)
		return false;
	size_t nimages = blob_get_count(in, 8);
	for (size_t i = 0; i < nimages; i++) {
		char *path = blob_get_str(in);
		if (path == NULL)
			return false;
		uint32_t k = image_of(l, path, strlen(path));
		free(path);
		if (k != i || !load_image_bytes(&l->images.items[k], in))
			return false;
	}
	size_t nbins = blob_get_count(in, 8);
	for (size_t i = 0; i < nbins; i++) {
		int64_t vpid = blob_get_i64(in);
		uint64_t baddr = blob_get_u64(in), memsz = blob_get_u64(in);
		uint32_t image = blob_get_u32(in);
		bool is_pic = blob_get_bool(in), used = blob_get_bool(in);
		uint32_t known;
		if (in->bad || image >= l->images.len || memsz == 0 ||
		    hashmap_get(&l->bin_of, (uint64_t)vpid, baddr, &known))
			return false;
		struct bin nb = { .vpid = vpid, .baddr = baddr, .memsz = memsz,
		    .image = image, .is_pic = is_pic, .used = used };
		VEC_PUSH(&l->bins, nb);
		hashmap_put(&l->bin_of, (uint64_t)vpid, baddr, (uint32_t)i);
		ctf_spans_add(&l->spans, vpid, baddr, memsz, (uint32_t)i);
	}
	size_t cap = blob_get_count(in, 4);
	if (in->bad || (cap & (cap - 1)) != 0)
		return false;
	if (cap > 0)
		l->map = xcalloc(cap, sizeof *l->map);
	l->capmap = cap;
	uint32_t nfuncs = builder_nfuncs(b);
	for (size_t i = 0; i < cap; i++) {
		struct addr_func *e = &l->map[i];
		e->f = blob_get_u32(in);
		if (e->f == 0)
			continue;
		e->vpid = blob_get_i64(in);
		e->addr = blob_get_u64(in);
		e->named = blob_get_bool(in);
		if (in->bad || e->f - 1 >= nfuncs)
			return false;
		l->nmap++;
	}
	/* room left for the next look-up to end at an empty slot */
	return !in->bad && (cap == 0 || l->nmap * 2 <= cap);
}
