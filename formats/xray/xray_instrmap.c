/*
 * XRay instrumentation maps: function id -> address -> name, read from an
 * instrumented ELF binary with libelf, following what `llvm-xray
 * -instr_map` does (llvm/lib/XRay/InstrumentationMap.cpp) so that the ids
 * and names ttv shows are the ones llvm-xray shows.
 *
 * The `xray_instr_map` section is an array of sled entries, 32 bytes on a
 * 64-bit ELF and 16 on a 32-bit one:
 *
 *	word	sled address
 *	word	function address
 *	u8	kind (0 entry, 1 exit, 2 tail, 3 log-args entry, 4 custom
 *		event, 5 typed event)
 *	u8	always_instrument
 *	u8	entry version
 *	...	padding
 *
 * Entry version 2 (clang >= 13) stores both addresses relative to the
 * field's own position; versions 0 and 1 store absolute addresses, which
 * in a position-independent file may be 0 with a dynamic relocation
 * holding the real value. Function ids are not stored: the first entry's
 * function is id 1 and the id goes up each time the function address
 * changes from one entry to the next, the rule the runtime itself uses.
 *
 * Symbol names come from the STT_FUNC symbols of .symtab (.dynsym when
 * there is no .symtab), demangled with libiberty when it is available.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gelf.h>

#ifdef HAVE_CPLUS_DEMANGLE
#if defined(HAVE_LIBIBERTY_DEMANGLE_H)
#include <libiberty/demangle.h>
#elif defined(HAVE_DEMANGLE_H)
#include <demangle.h>
#else
/* The library is there but not its header: declare what is used. */
#define DMGL_PARAMS (1 << 0)
#define DMGL_ANSI (1 << 1)
char *cplus_demangle(const char *mangled, int options);
#endif
#endif

#include "mapfile.h"
#include "xalloc.h"
#include "xray_instrmap.h"

#define SECTION_NAME "xray_instr_map"
#define NKINDS 6	/* kinds 0..5 are known */

struct xray_instrmap {
	size_t nfuncs;
	uint64_t *addrs;	/* [nfuncs], index = id - 1 */
	size_t *name_offs;	/* [nfuncs], into names */
	char *names;		/* NUL-separated */
	VEC(char *) warnings;
};

/* One relocation that may give a zero field of the map its value. */
struct reloc {
	uint64_t offset;	/* virtual address of the field */
	uint64_t value;
};

/* A function symbol; the name points into libelf's copy of the file. */
struct fsym {
	uint64_t value;
	uint64_t size;
	const char *name;
	unsigned rank;		/* lower wins among symbols at one address */
	size_t index;
};

/* Everything the loader needs while the ELF is open. */
struct loader {
	Elf *elf;
	bool is32;
	bool big_endian;
	GElf_Ehdr ehdr;
	size_t shstrndx;
	struct xray_instrmap *m;
	VEC(char) names;
	VEC(struct reloc) relocs;
	VEC(struct fsym) syms;
};

static void __attribute__((format(printf, 2, 3)))
add_warning(struct xray_instrmap *m, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = xstrdup(fmt);
	va_end(ap);
	VEC_PUSH(&m->warnings, s);
}

static uint64_t
get_word(const unsigned char *p, int size, bool big_endian)
{
	uint64_t v = 0;
	int i;

	if (big_endian) {
		for (i = 0; i < size; i++)
			v = (v << 8) | p[i];
	} else {
		for (i = size - 1; i >= 0; i--)
			v = (v << 8) | p[i];
	}
	return v;
}

/*
 * Opens path with libelf. Returns 0, or -1 with *err set. On success the
 * caller ends *elf and closes *fd.
 */
static int
elf_open_file(const char *path, int *fd, Elf **elf, char **err)
{
	struct stat st;

	if (elf_version(EV_CURRENT) == EV_NONE) {
		*err = xstrdup("libelf is out of date");
		return -1;
	}
	/* O_NONBLOCK: a FIFO named as the binary must not hang the load. */
	*fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (*fd < 0) {
		*err = xstrdup(strerror(errno));
		return -1;
	}
	if (fstat(*fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		*err = xstrdup("not a regular file");
		close(*fd);
		return -1;
	}
	mapfile_note(path, *fd);
	/*
	 * Mapped, not read: only the map and the symbol tables are touched,
	 * and a binary with debug info can be hundreds of megabytes.
	 */
	*elf = elf_begin(*fd, ELF_C_READ_MMAP, NULL);
	if (*elf == NULL || elf_kind(*elf) != ELF_K_ELF) {
		*err = xasprintf("not an ELF file%s%s",
		    *elf == NULL ? ": " : "",
		    *elf == NULL ? elf_errmsg(-1) : "");
		if (*elf != NULL)
			elf_end(*elf);
		close(*fd);
		return -1;
	}
	return 0;
}

/* The section called name, or NULL. */
static Elf_Scn *
find_section(Elf *elf, size_t shstrndx, const char *name, GElf_Shdr *shdr)
{
	Elf_Scn *scn = NULL;
	const char *n;

	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		if (gelf_getshdr(scn, shdr) == NULL)
			continue;
		n = elf_strptr(elf, shstrndx, shdr->sh_name);
		if (n != NULL && strcmp(n, name) == 0)
			return scn;
	}
	return NULL;
}

/* The relocation types llvm-xray resolves: "relative" and "absolute". */
static bool
reloc_kind(uint16_t machine, uint32_t type, bool *relative)
{
	switch (machine) {
	case EM_X86_64:
		*relative = type == R_X86_64_RELATIVE;
		return type == R_X86_64_RELATIVE || type == R_X86_64_64;
	case EM_386:
		*relative = type == R_386_RELATIVE;
		return type == R_386_RELATIVE || type == R_386_32;
	case EM_AARCH64:
		*relative = type == R_AARCH64_RELATIVE;
		return type == R_AARCH64_RELATIVE || type == R_AARCH64_ABS64;
	case EM_PPC64:
		*relative = type == R_PPC64_RELATIVE;
		return type == R_PPC64_RELATIVE || type == R_PPC64_ADDR64;
	default:
		return false;
	}
}

static int
reloc_cmp(const void *a, const void *b)
{
	const struct reloc *x = a, *y = b;

	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/*
 * Collects the dynamic relocations that land inside the map, [lo, hi).
 * Only linked files (executables, shared objects) have r_offset as a
 * virtual address; relocatable objects are not supported.
 */
static void
load_relocs(struct loader *L, uint64_t lo, uint64_t hi)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr shdr, symshdr;
	Elf_Data *data, *symdata;
	Elf_Scn *symscn;
	size_t i, n, entsize;
	bool rela, relative;
	uint64_t addend, type, symidx;
	GElf_Sym sym;
	struct reloc r;
	size_t bad = 0;

	if (L->ehdr.e_type != ET_EXEC && L->ehdr.e_type != ET_DYN)
		return;
	while ((scn = elf_nextscn(L->elf, scn)) != NULL) {
		if (gelf_getshdr(scn, &shdr) == NULL)
			continue;
		if (shdr.sh_type != SHT_RELA && shdr.sh_type != SHT_REL)
			continue;
		rela = shdr.sh_type == SHT_RELA;
		data = elf_getdata(scn, NULL);
		if (data == NULL || data->d_buf == NULL) {
			bad++;
			continue;
		}
		entsize = gelf_fsize(L->elf, rela ? ELF_T_RELA : ELF_T_REL, 1,
		    EV_CURRENT);
		if (entsize == 0)
			continue;
		n = data->d_size / entsize;
		symscn = elf_getscn(L->elf, shdr.sh_link);
		symdata = NULL;
		if (symscn != NULL && gelf_getshdr(symscn, &symshdr) != NULL &&
		    (symshdr.sh_type == SHT_DYNSYM ||
		    symshdr.sh_type == SHT_SYMTAB))
			symdata = elf_getdata(symscn, NULL);
		for (i = 0; i < n; i++) {
			if (rela) {
				GElf_Rela ra;
				if (gelf_getrela(data, (int)i, &ra) == NULL)
					break;
				r.offset = ra.r_offset;
				addend = (uint64_t)ra.r_addend;
				type = L->is32 ? ELF32_R_TYPE(ra.r_info) :
				    GELF_R_TYPE(ra.r_info);
				symidx = L->is32 ? ELF32_R_SYM(ra.r_info) :
				    GELF_R_SYM(ra.r_info);
			} else {
				GElf_Rel rl;
				if (gelf_getrel(data, (int)i, &rl) == NULL)
					break;
				r.offset = rl.r_offset;
				/* The addend is in place: the field is not 0
				 * and the relocation is never consulted. */
				addend = 0;
				type = L->is32 ? ELF32_R_TYPE(rl.r_info) :
				    GELF_R_TYPE(rl.r_info);
				symidx = L->is32 ? ELF32_R_SYM(rl.r_info) :
				    GELF_R_SYM(rl.r_info);
			}
			if (r.offset < lo || r.offset >= hi)
				continue;
			if (!reloc_kind(L->ehdr.e_machine, (uint32_t)type,
			    &relative))
				continue;
			if (relative) {
				r.value = addend;
			} else {
				if (symdata == NULL || symidx > INT32_MAX ||
				    gelf_getsym(symdata, (int)symidx, &sym) ==
				    NULL) {
					bad++;
					continue;
				}
				r.value = sym.st_value + addend;
			}
			VEC_PUSH(&L->relocs, r);
		}
	}
	if (bad > 0)
		add_warning(L->m, "%zu relocation(s) of the map could not be "
		    "read", bad);
	if (L->relocs.len > 1)
		xqsort(L->relocs.items, L->relocs.len, sizeof(struct reloc),
		    reloc_cmp);
}

/* The value a zero field at vaddr gets from the relocations, or 0. */
static uint64_t
relocate(const struct loader *L, uint64_t vaddr)
{
	size_t lo = 0, hi = L->relocs.len, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (L->relocs.items[mid].offset < vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < L->relocs.len && L->relocs.items[lo].offset == vaddr)
		return L->relocs.items[lo].value;
	return 0;
}

static unsigned
bind_rank(unsigned char bind)
{
	switch (bind) {
	case STB_GLOBAL:
		return 0;
	case STB_WEAK:
		return 1;
	case STB_LOCAL:
		return 2;
	default:
		return 3;
	}
}

static int
fsym_cmp(const void *a, const void *b)
{
	const struct fsym *x = a, *y = b;

	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* Reads the STT_FUNC symbols of one symbol table; returns how many. */
static size_t
load_symtab(struct loader *L, Elf_Scn *scn, const GElf_Shdr *shdr)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t i, n, entsize, before = L->syms.len;
	GElf_Sym sym;
	struct fsym f;

	if (data == NULL || data->d_buf == NULL)
		return 0;
	entsize = gelf_fsize(L->elf, ELF_T_SYM, 1, EV_CURRENT);
	if (entsize == 0)
		return 0;
	n = data->d_size / entsize;
	for (i = 1; i < n && i <= INT32_MAX; i++) {
		if (gelf_getsym(data, (int)i, &sym) == NULL)
			break;
		if (GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
		    sym.st_shndx == SHN_UNDEF)
			continue;
		f.name = elf_strptr(L->elf, shdr->sh_link, sym.st_name);
		if (f.name == NULL || f.name[0] == '\0')
			continue;
		f.value = sym.st_value;
		f.size = sym.st_size;
		f.rank = bind_rank(GELF_ST_BIND(sym.st_info));
		f.index = i;
		VEC_PUSH(&L->syms, f);
	}
	return L->syms.len - before;
}

/* .symtab when it has functions, else .dynsym, as llvm's symbolizer. */
static void
load_symbols(struct loader *L)
{
	Elf_Scn *scn = NULL, *dynsym = NULL;
	GElf_Shdr shdr, dynshdr;
	bool have_symtab = false;

	while ((scn = elf_nextscn(L->elf, scn)) != NULL) {
		if (gelf_getshdr(scn, &shdr) == NULL)
			continue;
		if (shdr.sh_type == SHT_SYMTAB) {
			have_symtab = true;
			load_symtab(L, scn, &shdr);
		} else if (shdr.sh_type == SHT_DYNSYM && dynsym == NULL) {
			dynsym = scn;
			dynshdr = shdr;
		}
	}
	if (L->syms.len == 0 && dynsym != NULL)
		load_symtab(L, dynsym, &dynshdr);
	if (L->syms.len == 0)
		add_warning(L->m, "no function symbols (%s): functions "
		    "are named by address",
		    have_symtab ? "empty .symtab" : "stripped binary");
	if (L->syms.len > 1)
		xqsort(L->syms.items, L->syms.len, sizeof(struct fsym),
		    fsym_cmp);
}

/* The symbol for a function address: exact value first, then the
 * nearest symbol below whose [value, value + size) holds it. */
static const struct fsym *
find_symbol(const struct loader *L, uint64_t addr)
{
	size_t lo = 0, hi = L->syms.len, mid, i, steps;
	const struct fsym *s;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (L->syms.items[mid].value < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < L->syms.len && L->syms.items[lo].value == addr)
		return &L->syms.items[lo];
	/* Nested or overlapping symbols are rare: look a little way back. */
	for (i = lo, steps = 0; i > 0 && steps < 64; i--, steps++) {
		s = &L->syms.items[i - 1];
		if (addr - s->value < s->size)
			return s;
	}
	return NULL;
}

static void
add_name(struct loader *L, size_t id_index, const char *name)
{
	size_t len = strlen(name);

	L->m->name_offs[id_index] = L->names.len;
	VEC_RESERVE(&L->names, len + 1);
	memcpy(L->names.items + L->names.len, name, len + 1);
	L->names.len += len + 1;
}

static void
name_functions(struct loader *L)
{
	struct xray_instrmap *m = L->m;
	const struct fsym *s;
	size_t i, missing = 0;
	uint64_t first_missing = 0;
	size_t first_missing_id = 0;
	char buf[32];
	char *dem;

	load_symbols(L);
	for (i = 0; i < m->nfuncs; i++) {
		s = find_symbol(L, m->addrs[i]);
		if (s == NULL) {
			if (missing++ == 0) {
				first_missing = m->addrs[i];
				first_missing_id = i + 1;
			}
			/* llvm-xray's spelling: lower-case hex, no 0x */
			snprintf(buf, sizeof buf, "@(%" PRIx64 ")",
			    m->addrs[i]);
			add_name(L, i, buf);
			continue;
		}
		dem = NULL;
#ifdef HAVE_CPLUS_DEMANGLE
		if (strncmp(s->name, "_Z", 2) == 0)
			dem = cplus_demangle(s->name, DMGL_PARAMS | DMGL_ANSI);
#endif
		add_name(L, i, dem != NULL ? dem : s->name);
		free(dem);
	}
	if (missing > 0 && L->syms.len > 0)
		add_warning(m, "no symbol for %zu function(s), e.g. id %zu "
		    "at 0x%" PRIx64, missing,
		    first_missing_id, first_missing);
}

/*
 * Walks the sled entries and gives every function its id. Returns 0, or -1
 * with *err set.
 */
static int
read_sleds(struct loader *L, Elf_Scn *scn, const GElf_Shdr *shdr, char **err)
{
	struct xray_instrmap *m = L->m;
	Elf_Data *data;
	const unsigned char *p;
	size_t entsize = L->is32 ? 16 : 32, word = L->is32 ? 4 : 8;
	size_t i, n, kinds[256] = { 0 }, newer = 0;
	uint64_t mask = L->is32 ? UINT32_MAX : UINT64_MAX;
	uint64_t pos, fn, prev = 0, fnfield;
	unsigned kind, version;
	VEC(uint64_t) addrs = { 0 };

	if (shdr->sh_type == SHT_NOBITS) {
		*err = xstrdup("section " SECTION_NAME " has no data");
		return -1;
	}
	data = elf_getdata(scn, NULL);
	if (data == NULL || (data->d_buf == NULL && data->d_size > 0)) {
		*err = xasprintf("offset %" PRIu64 ": section "
		    SECTION_NAME " cannot be read: %s",
		    (uint64_t)shdr->sh_offset, elf_errmsg(-1));
		return -1;
	}
	n = data->d_size / entsize;
	if (n == 0) {
		*err = xasprintf("section " SECTION_NAME " holds no "
		    "sled entry (%zu bytes)", data->d_size);
		return -1;
	}
	if (data->d_size % entsize != 0)
		add_warning(m, "offset %" PRIu64 ": section " SECTION_NAME
		    " is %zu bytes, not a multiple of %zu: the last %zu "
		    "bytes are ignored",
		    (uint64_t)shdr->sh_offset + n * entsize, data->d_size,
		    entsize, data->d_size % entsize);

	load_relocs(L, shdr->sh_addr, shdr->sh_addr + data->d_size);
	for (i = 0; i < n; i++) {
		p = (const unsigned char *)data->d_buf + i * entsize;
		pos = shdr->sh_addr + i * entsize;
		fnfield = get_word(p + word, (int)word, L->big_endian);
		kind = p[2 * word];
		version = p[2 * word + 2];
		kinds[kind]++;
		if (version >= 2) {
			/* Relative to the field itself: a signed offset, so
			 * the sum wraps at the word size. */
			fn = (pos + word + fnfield) & mask;
			if (version > 2)
				newer++;
		} else {
			fn = fnfield != 0 ? fnfield : relocate(L, pos + word);
		}
		/* Every entry counts, whatever its kind, as in the runtime
		 * (so the ids stay those of the log). */
		if (i == 0 || fn != prev)
			VEC_PUSH(&addrs, fn);
		prev = fn;
	}
	for (kind = NKINDS; kind < 256; kind++)
		if (kinds[kind] > 0)
			add_warning(m, "%zu sled(s) of unknown kind %u "
			    "ignored", kinds[kind], kind);
	if (newer > 0)
		add_warning(m, "%zu sled(s) with an entry version above 2 "
		    "read as version 2", newer);
	m->nfuncs = addrs.len;
	m->addrs = addrs.items;
	m->name_offs = xcalloc(m->nfuncs, sizeof *m->name_offs);
	return 0;
}

struct xray_instrmap *
xray_instrmap_load(const char *path, char **err)
{
	struct loader L = { 0 };
	struct xray_instrmap *m;
	Elf_Scn *scn;
	GElf_Shdr shdr;
	int fd;

	*err = NULL;
	if (elf_open_file(path, &fd, &L.elf, err) != 0)
		return NULL;
	m = L.m = xcalloc(1, sizeof *m);
	if (gelf_getehdr(L.elf, &L.ehdr) == NULL ||
	    elf_getshdrstrndx(L.elf, &L.shstrndx) != 0) {
		*err = xasprintf("bad ELF header: %s", elf_errmsg(-1));
		goto fail;
	}
	L.is32 = L.ehdr.e_ident[EI_CLASS] == ELFCLASS32;
	L.big_endian = L.ehdr.e_ident[EI_DATA] == ELFDATA2MSB;
	scn = find_section(L.elf, L.shstrndx, SECTION_NAME, &shdr);
	if (scn == NULL) {
		*err = xstrdup("no " SECTION_NAME " section (not built "
		    "with -fxray-instrument?)");
		goto fail;
	}
	if (read_sleds(&L, scn, &shdr, err) != 0)
		goto fail;
	name_functions(&L);
	VEC_SHRINK(&L.names);
	m->names = L.names.items;
	VEC_FREE(&L.relocs);
	VEC_FREE(&L.syms);
	elf_end(L.elf);
	close(fd);
	return m;

fail:
	VEC_FREE(&L.names);
	VEC_FREE(&L.relocs);
	VEC_FREE(&L.syms);
	elf_end(L.elf);
	close(fd);
	xray_instrmap_free(m);
	return NULL;
}

void
xray_instrmap_free(struct xray_instrmap *m)
{
	size_t i;

	if (m == NULL)
		return;
	for (i = 0; i < m->warnings.len; i++)
		free(m->warnings.items[i]);
	VEC_FREE(&m->warnings);
	free(m->addrs);
	free(m->name_offs);
	free(m->names);
	free(m);
}

const char *
xray_instrmap_name(const struct xray_instrmap *m, int32_t id)
{
	if (m == NULL || id < 1 || (size_t)id > m->nfuncs || m->names == NULL)
		return NULL;
	return m->names + m->name_offs[id - 1];
}

uint64_t
xray_instrmap_addr(const struct xray_instrmap *m, int32_t id)
{
	if (m == NULL || id < 1 || (size_t)id > m->nfuncs)
		return 0;
	return m->addrs[id - 1];
}

size_t
xray_instrmap_nfuncs(const struct xray_instrmap *m)
{
	return m != NULL ? m->nfuncs : 0;
}

size_t
xray_instrmap_nwarnings(const struct xray_instrmap *m)
{
	return m != NULL ? m->warnings.len : 0;
}

const char *
xray_instrmap_warning(const struct xray_instrmap *m, size_t i)
{
	if (m == NULL || i >= m->warnings.len)
		return NULL;
	return m->warnings.items[i];
}

/* True if path is a regular ELF file with an xray_instr_map section. */
static bool
has_instr_map(const char *path)
{
	GElf_Shdr shdr;
	size_t shstrndx;
	char *err = NULL;
	bool found;
	Elf *elf;
	int fd;

	if (access(path, R_OK) != 0 ||
	    elf_open_file(path, &fd, &elf, &err) != 0) {
		free(err);
		return false;
	}
	found = elf_getshdrstrndx(elf, &shstrndx) == 0 &&
	    find_section(elf, shstrndx, SECTION_NAME, &shdr) != NULL;
	elf_end(elf);
	close(fd);
	return found;
}

char *
xray_instrmap_discover(const char *log_path)
{
	static const char prefix[] = "xray-log.";
	const char *base, *slash, *rest, *dot;
	char *prog, *cand;
	size_t dirlen;

	if (log_path == NULL)
		return NULL;
	slash = strrchr(log_path, '/');
	base = slash != NULL ? slash + 1 : log_path;
	dirlen = slash != NULL ? (size_t)(slash - log_path) : 0;
	if (strncmp(base, prefix, sizeof prefix - 1) != 0)
		return NULL;
	rest = base + sizeof prefix - 1;

	/*
	 * PROG is what lies between "xray-log." and the last dot; a program
	 * name may hold dots itself, so shorter prefixes are tried after.
	 */
	for (dot = strrchr(rest, '.'); dot != NULL && dot > rest;) {
		prog = xstrndup(rest, (size_t)(dot - rest));
		/* Beside the log first, then in the current directory. */
		if (slash != NULL)
			cand = xasprintf("%.*s/%s", (int)dirlen, log_path, prog);
		else
			cand = xstrdup(prog);
		if (has_instr_map(cand)) {
			free(prog);
			return cand;
		}
		free(cand);
		if (slash != NULL && has_instr_map(prog))
			return prog;
		free(prog);
		do
			dot--;
		while (dot > rest && *dot != '.');
		if (*dot != '.')
			break;
	}
	return NULL;
}
