/*
 * Tests of the XRay instrumentation-map reader
 * (formats/xray/xray_instrmap.c).
 *
 * Most maps here are synthetic ELF files written with libelf's own writer
 * (64- and 32-bit, both byte orders, entry versions 0 and 2, relocations,
 * .symtab or only .dynsym, damaged sections), so that each rule of the
 * format is checked on its own; the committed fixtures of
 * tests/data/instrmap (built by clang, see make-fixtures.sh) check the
 * whole on real binaries. instrmap_conformance.sh compares with
 * llvm-xray.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>
#include <gelf.h>

#include "xalloc.h"
#include "xray_instrmap.h"

/* ---- a small ELF writer ---------------------------------------------- */

struct gsym {
	const char *name;
	uint64_t value, size;
	unsigned char type, bind;
};

struct grel {
	uint64_t offset;
	uint32_t type, sym;	/* sym: 1-based index into syms */
	int64_t addend;
};

struct gspec {
	int cls;		/* ELFCLASS32 / ELFCLASS64 */
	int data;		/* ELFDATA2LSB / ELFDATA2MSB */
	uint16_t machine;
	bool no_map;
	uint32_t map_type;	/* SHT_PROGBITS unless set */
	uint64_t map_addr;
	const unsigned char *map;
	size_t map_size;
	uint32_t symtab_type;	/* SHT_SYMTAB, SHT_DYNSYM or 0 (none) */
	const struct gsym *syms;
	size_t nsyms;
	const struct grel *rels;
	size_t nrels;
};

static char tmpdir[] = "/tmp/instrmap-test.XXXXXX";

static void
put_word(unsigned char *p, int size, uint64_t v, bool big)
{
	int i;

	for (i = 0; i < size; i++)
		p[big ? size - 1 - i : i] = (unsigned char)(v >> (8 * i));
}

/* One sled entry of a map laid out for spec (cls, data). */
static void
put_sled(unsigned char *map, int cls, bool big, size_t i, uint64_t sled,
    uint64_t fn, unsigned kind, unsigned version)
{
	int w = cls == ELFCLASS32 ? 4 : 8;
	unsigned char *p = map + i * (size_t)(2 * w * 2);

	put_word(p, w, sled, big);
	put_word(p + w, w, fn, big);
	p[2 * w] = (unsigned char)kind;
	p[2 * w + 1] = 0;
	p[2 * w + 2] = (unsigned char)version;
}

/* A version-2 entry: fields hold target - own address. */
static void
put_sled_v2(unsigned char *map, int cls, bool big, uint64_t map_addr,
    size_t i, uint64_t sled, uint64_t fn, unsigned kind)
{
	int w = cls == ELFCLASS32 ? 4 : 8;
	uint64_t at = map_addr + i * (size_t)(4 * w);

	put_sled(map, cls, big, i, sled - at, fn - (at + (uint64_t)w), kind, 2);
}

static Elf_Scn *
new_section(Elf *e, uint32_t name, uint32_t type, uint64_t addr,
    Elf_Type dtype, void *buf, size_t size, uint32_t link, uint64_t entsize)
{
	Elf_Scn *scn = elf_newscn(e);
	Elf_Data *d;
	GElf_Shdr sh;

	assert_non_null(scn);
	d = elf_newdata(scn);
	assert_non_null(d);
	d->d_align = 1;
	d->d_buf = buf;
	d->d_size = size;
	d->d_type = dtype;
	d->d_version = EV_CURRENT;
	assert_non_null(gelf_getshdr(scn, &sh));
	sh.sh_name = name;
	sh.sh_type = type;
	sh.sh_addr = addr;
	sh.sh_link = link;
	sh.sh_entsize = entsize;
	sh.sh_flags = type == SHT_PROGBITS || type == SHT_NOBITS ? SHF_ALLOC : 0;
	assert_true(gelf_update_shdr(scn, &sh));
	return scn;
}

/* Writes the ELF file described by s to dir/name; returns its path. */
static char *
write_elf(const char *name, const struct gspec *s)
{
	static const char shstr[] =
	    "\0.shstrtab\0xray_instr_map\0.symtab\0.dynsym\0.strtab\0.rela.dyn";
	enum { N_SHSTR = 1, N_MAP = 11, N_SYMTAB = 26, N_DYNSYM = 34,
	    N_STRTAB = 42, N_RELA = 50 };
	char *path = xasprintf("%s/%s", tmpdir, name);
	size_t symsz, relsz, i, stroff;
	char *strtab = NULL, *symbuf = NULL, *relbuf = NULL;
	Elf_Scn *shstrscn, *strscn = NULL, *symscn = NULL, *scn;
	Elf_Data *d;
	GElf_Ehdr eh;
	GElf_Sym sym;
	GElf_Rela ra;
	Elf *e;
	int fd;

	assert_int_not_equal(elf_version(EV_CURRENT), EV_NONE);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	e = elf_begin(fd, ELF_C_WRITE, NULL);
	assert_non_null(e);
	assert_non_null(gelf_newehdr(e, s->cls));
	assert_non_null(gelf_getehdr(e, &eh));
	eh.e_ident[EI_DATA] = (unsigned char)s->data;
	eh.e_machine = s->machine;
	eh.e_type = ET_DYN;
	eh.e_version = EV_CURRENT;
	assert_true(gelf_update_ehdr(e, &eh));

	shstrscn = new_section(e, N_SHSTR, SHT_STRTAB, 0, ELF_T_BYTE,
	    (void *)shstr, sizeof shstr, 0, 0);
	if (!s->no_map)
		new_section(e, N_MAP, s->map_type ? s->map_type : SHT_PROGBITS,
		    s->map_addr, ELF_T_BYTE, (void *)s->map, s->map_size, 0, 0);
	if (s->symtab_type != 0) {
		/* string table: "\0" then each name */
		stroff = 1;
		for (i = 0; i < s->nsyms; i++)
			stroff += strlen(s->syms[i].name) + 1;
		strtab = xcalloc(1, stroff);
		strscn = new_section(e, N_STRTAB, SHT_STRTAB, 0, ELF_T_BYTE,
		    strtab, stroff, 0, 0);
		symsz = gelf_fsize(e, ELF_T_SYM, 1, EV_CURRENT);
		symbuf = xcalloc(s->nsyms + 1, symsz);
		symscn = new_section(e, s->symtab_type == SHT_SYMTAB ?
		    N_SYMTAB : N_DYNSYM, s->symtab_type, 0, ELF_T_SYM, symbuf,
		    (s->nsyms + 1) * symsz, (uint32_t)elf_ndxscn(strscn), symsz);
		d = elf_getdata(symscn, NULL);
		stroff = 1;
		for (i = 0; i < s->nsyms; i++) {
			memset(&sym, 0, sizeof sym);
			strcpy(strtab + stroff, s->syms[i].name);
			sym.st_name = (uint32_t)stroff;
			stroff += strlen(s->syms[i].name) + 1;
			sym.st_value = s->syms[i].value;
			sym.st_size = s->syms[i].size;
			sym.st_info = GELF_ST_INFO(s->syms[i].bind,
			    s->syms[i].type);
			sym.st_shndx = 1;	/* anything defined */
			assert_true(gelf_update_sym(d, (int)i + 1, &sym));
		}
	}
	if (s->nrels > 0) {
		relsz = gelf_fsize(e, ELF_T_RELA, 1, EV_CURRENT);
		relbuf = xcalloc(s->nrels, relsz);
		scn = new_section(e, N_RELA, SHT_RELA, 0, ELF_T_RELA, relbuf,
		    s->nrels * relsz,
		    symscn != NULL ? (uint32_t)elf_ndxscn(symscn) : 0, relsz);
		d = elf_getdata(scn, NULL);
		for (i = 0; i < s->nrels; i++) {
			ra.r_offset = s->rels[i].offset;
			ra.r_addend = s->rels[i].addend;
			ra.r_info = s->cls == ELFCLASS32 ?
			    ELF32_R_INFO(s->rels[i].sym, s->rels[i].type) :
			    GELF_R_INFO(s->rels[i].sym, s->rels[i].type);
			assert_true(gelf_update_rela(d, (int)i, &ra));
		}
	}
	assert_non_null(gelf_getehdr(e, &eh));
	eh.e_shstrndx = (uint16_t)elf_ndxscn(shstrscn);
	assert_true(gelf_update_ehdr(e, &eh));
	assert_true(elf_update(e, ELF_C_WRITE) > 0);
	elf_end(e);
	close(fd);
	free(strtab);
	free(symbuf);
	free(relbuf);
	return path;
}

static struct xray_instrmap *
load_ok(const char *path)
{
	char *err = NULL;
	struct xray_instrmap *m = xray_instrmap_load(path, &err);

	if (m == NULL)
		fail_msg("%s: %s", path, err);
	assert_null(err);
	return m;
}

/* The error message of a map that must not load. */
static char *
load_err(const char *path)
{
	char *err = NULL;
	struct xray_instrmap *m = xray_instrmap_load(path, &err);

	assert_null(m);
	assert_non_null(err);
	return err;
}

static bool
has_warning(const struct xray_instrmap *m, const char *part)
{
	size_t i;

	for (i = 0; i < xray_instrmap_nwarnings(m); i++)
		if (strstr(xray_instrmap_warning(m, i), part) != NULL)
			return true;
	return false;
}

static const char *
fixture(const char *name)
{
	static char buf[4096];
	const char *src = getenv("TTV_SRCDIR");

	snprintf(buf, sizeof buf, "%s/tests/data/instrmap/%s",
	    src != NULL ? src : ".", name);
	return buf;
}

/* ---- synthetic maps ---------------------------------------------------- */

#define MAP_ADDR 0x4000u

/*
 * Version 2, 64-bit little-endian: ids change with the function address
 * only, a function whose sleds come back later gets a second id, kind 5 is
 * accepted, kind 9 warned about; names by exact value (global before a
 * local alias) or by containment.
 */
static void
test_v2_ids_and_names(void **state)
{
	static const struct gsym syms[] = {
		{ "alias_local", 0x1000, 0x20, STT_FUNC, STB_LOCAL },
		{ "first", 0x1000, 0x20, STT_FUNC, STB_GLOBAL },
		{ "second", 0x1100, 0x40, STT_FUNC, STB_WEAK },
		{ "outer", 0x1180, 0x100, STT_FUNC, STB_GLOBAL },
		{ "data_object", 0x1400, 0x10, STT_OBJECT, STB_GLOBAL },
	};
	unsigned char map[32 * 9];
	struct gspec s = { ELFCLASS64, ELFDATA2LSB, EM_X86_64,
	    .map_addr = MAP_ADDR, .map = map, .map_size = sizeof map,
	    .symtab_type = SHT_SYMTAB, .syms = syms, .nsyms = 5 };
	struct xray_instrmap *m;
	char *path;

	memset(map, 0, sizeof map);
	put_sled_v2(map, s.cls, false, MAP_ADDR, 0, 0x1004, 0x1000, 0);
	put_sled_v2(map, s.cls, false, MAP_ADDR, 1, 0x1010, 0x1000, 1);
	put_sled_v2(map, s.cls, false, MAP_ADDR, 2, 0x1100, 0x1100, 3);
	put_sled_v2(map, s.cls, false, MAP_ADDR, 3, 0x1120, 0x1100, 5);
	put_sled_v2(map, s.cls, false, MAP_ADDR, 4, 0x1130, 0x1100, 1);
	put_sled_v2(map, s.cls, false, MAP_ADDR, 5, 0x11a0, 0x11a0, 0);
	put_sled_v2(map, s.cls, false, MAP_ADDR, 6, 0x11b0, 0x11a0, 9);
	put_sled_v2(map, s.cls, false, MAP_ADDR, 7, 0x1008, 0x1000, 2);
	put_sled_v2(map, s.cls, false, MAP_ADDR, 8, 0x1400, 0x1400, 0);
	path = write_elf("v2.elf", &s);
	m = load_ok(path);
	assert_int_equal(xray_instrmap_nfuncs(m), 5);
	assert_int_equal(xray_instrmap_addr(m, 1), 0x1000);
	assert_string_equal(xray_instrmap_name(m, 1), "first");
	assert_int_equal(xray_instrmap_addr(m, 2), 0x1100);
	assert_string_equal(xray_instrmap_name(m, 2), "second");
	assert_int_equal(xray_instrmap_addr(m, 3), 0x11a0);
	assert_string_equal(xray_instrmap_name(m, 3), "outer");
	assert_int_equal(xray_instrmap_addr(m, 4), 0x1000);
	assert_string_equal(xray_instrmap_name(m, 4), "first");
	/* only STT_FUNC symbols name functions */
	assert_string_equal(xray_instrmap_name(m, 5), "@(1400)");
	assert_null(xray_instrmap_name(m, 0));
	assert_null(xray_instrmap_name(m, 6));
	assert_null(xray_instrmap_name(m, -1));
	assert_int_equal(xray_instrmap_addr(m, 6), 0);
	assert_true(has_warning(m, "unknown kind 9"));
	assert_false(has_warning(m, "kind 5"));
	assert_true(has_warning(m, "no symbol for 1 function"));
	assert_null(xray_instrmap_warning(m, xray_instrmap_nwarnings(m)));
	xray_instrmap_free(m);
	free(path);
}

/*
 * Versions 0 and 1: absolute addresses; a zero field takes its value from
 * an R_X86_64_RELATIVE (the addend) or R_X86_64_64 (symbol + addend)
 * relocation. Names from .dynsym when there is no .symtab.
 */
static void
test_v0_relocations_dynsym(void **state)
{
	static const struct gsym syms[] = {
		{ "alpha", 0x2000, 0x10, STT_FUNC, STB_GLOBAL },
		{ "beta", 0x2100, 0x10, STT_FUNC, STB_GLOBAL },
		{ "gamma", 0x2200, 0x10, STT_FUNC, STB_GLOBAL },
	};
	unsigned char map[32 * 4];
	/* fields at MAP_ADDR + 32 i + 8 */
	static const struct grel rels[] = {
		{ MAP_ADDR + 8, R_X86_64_RELATIVE, 0, 0x2000 },
		{ MAP_ADDR + 32 + 8, R_X86_64_64, 2, 0 },	/* beta */
		{ MAP_ADDR + 64 + 8, R_X86_64_64, 3, 0 },	/* unused: field set */
		{ MAP_ADDR + 96 + 8, R_X86_64_RELATIVE, 0, 0x2208 },
	};
	struct gspec s = { ELFCLASS64, ELFDATA2LSB, EM_X86_64,
	    .map_addr = MAP_ADDR, .map = map, .map_size = sizeof map,
	    .symtab_type = SHT_DYNSYM, .syms = syms, .nsyms = 3,
	    .rels = rels, .nrels = 4 };
	struct xray_instrmap *m;
	char *path;

	memset(map, 0, sizeof map);
	put_sled(map, s.cls, false, 0, 0, 0, 0, 0);
	put_sled(map, s.cls, false, 1, 0, 0, 0, 1);
	put_sled(map, s.cls, false, 2, 0x2204, 0x2200, 0, 1);
	put_sled(map, s.cls, false, 3, 0, 0, 1, 0);
	path = write_elf("v0.elf", &s);
	m = load_ok(path);
	assert_int_equal(xray_instrmap_nfuncs(m), 4);
	assert_string_equal(xray_instrmap_name(m, 1), "alpha");
	assert_int_equal(xray_instrmap_addr(m, 2), 0x2100);
	assert_string_equal(xray_instrmap_name(m, 2), "beta");
	assert_string_equal(xray_instrmap_name(m, 3), "gamma");
	/* 0x2208 lies inside gamma's [0x2200, 0x2210) */
	assert_int_equal(xray_instrmap_addr(m, 4), 0x2208);
	assert_string_equal(xray_instrmap_name(m, 4), "gamma");
	assert_int_equal(xray_instrmap_nwarnings(m), 0);
	xray_instrmap_free(m);
	free(path);
}

/* 32-bit ELF: 16-byte entries, relative fields that are negative. */
static void
test_elf32(void **state)
{
	static const struct gsym syms[] = {
		{ "low32", 0x800, 0x40, STT_FUNC, STB_GLOBAL },
		{ "high32", 0x9000, 0x40, STT_FUNC, STB_GLOBAL },
	};
	unsigned char map[16 * 3];
	struct gspec s = { ELFCLASS32, ELFDATA2LSB, EM_386,
	    .map_addr = MAP_ADDR, .map = map, .map_size = sizeof map,
	    .symtab_type = SHT_SYMTAB, .syms = syms, .nsyms = 2 };
	struct xray_instrmap *m;
	char *path;

	memset(map, 0, sizeof map);
	put_sled_v2(map, s.cls, false, MAP_ADDR, 0, 0x804, 0x800, 0);
	put_sled_v2(map, s.cls, false, MAP_ADDR, 1, 0x830, 0x800, 1);
	put_sled_v2(map, s.cls, false, MAP_ADDR, 2, 0x9004, 0x9000, 0);
	path = write_elf("elf32.elf", &s);
	m = load_ok(path);
	assert_int_equal(xray_instrmap_nfuncs(m), 2);
	assert_int_equal(xray_instrmap_addr(m, 1), 0x800);
	assert_string_equal(xray_instrmap_name(m, 1), "low32");
	assert_int_equal(xray_instrmap_addr(m, 2), 0x9000);
	assert_string_equal(xray_instrmap_name(m, 2), "high32");
	xray_instrmap_free(m);
	free(path);
}

/* A big-endian 64-bit map is read in its own byte order. */
static void
test_big_endian(void **state)
{
	static const struct gsym syms[] = {
		{ "be_one", 0x10000, 0x80, STT_FUNC, STB_GLOBAL },
		{ "be_two", 0x10080, 0x80, STT_FUNC, STB_GLOBAL },
	};
	unsigned char map[32 * 2];
	struct gspec s = { ELFCLASS64, ELFDATA2MSB, EM_PPC64,
	    .map_addr = MAP_ADDR, .map = map, .map_size = sizeof map,
	    .symtab_type = SHT_SYMTAB, .syms = syms, .nsyms = 2 };
	struct xray_instrmap *m;
	char *path;

	memset(map, 0, sizeof map);
	put_sled_v2(map, s.cls, true, MAP_ADDR, 0, 0x10008, 0x10000, 0);
	put_sled_v2(map, s.cls, true, MAP_ADDR, 1, 0x10088, 0x10080, 0);
	path = write_elf("be.elf", &s);
	m = load_ok(path);
	assert_int_equal(xray_instrmap_nfuncs(m), 2);
	assert_string_equal(xray_instrmap_name(m, 1), "be_one");
	assert_string_equal(xray_instrmap_name(m, 2), "be_two");
	xray_instrmap_free(m);
	free(path);
}

/* C++ names are demangled as llvm-xray prints them (with libiberty). */
static void
test_demangle(void **state)
{
	static const struct gsym syms[] = {
		{ "_ZN3geo4areaEii", 0x3000, 0x10, STT_FUNC, STB_GLOBAL },
		{ "_ZNK3geo5point5norm1Ev", 0x3010, 0x10, STT_FUNC, STB_GLOBAL },
		{ "_Znot_valid", 0x3020, 0x10, STT_FUNC, STB_GLOBAL },
	};
	unsigned char map[32 * 3];
	struct gspec s = { ELFCLASS64, ELFDATA2LSB, EM_X86_64,
	    .map_addr = MAP_ADDR, .map = map, .map_size = sizeof map,
	    .symtab_type = SHT_SYMTAB, .syms = syms, .nsyms = 3 };
	struct xray_instrmap *m;
	char *path;

	memset(map, 0, sizeof map);
	put_sled_v2(map, s.cls, false, MAP_ADDR, 0, 0x3000, 0x3000, 0);
	put_sled_v2(map, s.cls, false, MAP_ADDR, 1, 0x3010, 0x3010, 0);
	put_sled_v2(map, s.cls, false, MAP_ADDR, 2, 0x3020, 0x3020, 0);
	path = write_elf("cxx.elf", &s);
	m = load_ok(path);
#ifdef HAVE_CPLUS_DEMANGLE
	assert_string_equal(xray_instrmap_name(m, 1), "geo::area(int, int)");
	assert_string_equal(xray_instrmap_name(m, 2),
	    "geo::point::norm1() const");
#else
	assert_string_equal(xray_instrmap_name(m, 1), "_ZN3geo4areaEii");
#endif
	/* what cannot be demangled stays as it is */
	assert_string_equal(xray_instrmap_name(m, 3), "_Znot_valid");
	xray_instrmap_free(m);
	free(path);
}

/* No symbol table at all: every function is named by its address. */
static void
test_stripped(void **state)
{
	unsigned char map[32 * 2];
	struct gspec s = { ELFCLASS64, ELFDATA2LSB, EM_X86_64,
	    .map_addr = MAP_ADDR, .map = map, .map_size = sizeof map };
	struct xray_instrmap *m;
	char *path;

	memset(map, 0, sizeof map);
	put_sled_v2(map, s.cls, false, MAP_ADDR, 0, 0x10e54, 0x10e50, 0);
	put_sled_v2(map, s.cls, false, MAP_ADDR, 1, 0xabc4, 0xabc0, 0);
	path = write_elf("stripped.elf", &s);
	m = load_ok(path);
	assert_int_equal(xray_instrmap_nfuncs(m), 2);
	assert_string_equal(xray_instrmap_name(m, 1), "@(10e50)");
	assert_string_equal(xray_instrmap_name(m, 2), "@(abc0)");
	assert_true(has_warning(m, "no function symbols"));
	xray_instrmap_free(m);
	free(path);
}

/* A map whose size is not a whole number of entries: the whole ones are
 * read, the rest is reported. */
static void
test_partial_entry(void **state)
{
	static const struct gsym syms[] = {
		{ "whole", 0x1000, 0x10, STT_FUNC, STB_GLOBAL },
	};
	unsigned char map[32 + 7];
	struct gspec s = { ELFCLASS64, ELFDATA2LSB, EM_X86_64,
	    .map_addr = MAP_ADDR, .map = map, .map_size = sizeof map,
	    .symtab_type = SHT_SYMTAB, .syms = syms, .nsyms = 1 };
	struct xray_instrmap *m;
	char *path;

	memset(map, 0xee, sizeof map);
	put_sled_v2(map, s.cls, false, MAP_ADDR, 0, 0x1000, 0x1000, 0);
	memset(map + 19, 0, 13);
	path = write_elf("partial.elf", &s);
	m = load_ok(path);
	assert_int_equal(xray_instrmap_nfuncs(m), 1);
	assert_string_equal(xray_instrmap_name(m, 1), "whole");
	assert_true(has_warning(m, "not a multiple of 32"));
	xray_instrmap_free(m);
	free(path);
}

/* What cannot be a map is an error that names the file and the problem. */
static void
test_errors(void **state)
{
	unsigned char map[32];
	struct gspec s = { ELFCLASS64, ELFDATA2LSB, EM_X86_64,
	    .map_addr = MAP_ADDR, .map = map, .map_size = 5 };
	char *path, *err;
	FILE *f;

	memset(map, 0, sizeof map);
	path = write_elf("short.elf", &s);
	err = load_err(path);
	assert_non_null(strstr(err, "no sled entry (5 bytes)"));
	free(err);
	free(path);

	s.map_size = 0;
	path = write_elf("empty.elf", &s);
	err = load_err(path);
	assert_non_null(strstr(err, "no sled entry"));
	free(err);
	free(path);

	s.map_size = sizeof map;
	s.map_type = SHT_NOBITS;
	path = write_elf("nobits.elf", &s);
	err = load_err(path);
	assert_non_null(strstr(err, "no data"));
	free(err);
	free(path);

	s.no_map = true;
	path = write_elf("nomap.elf", &s);
	err = load_err(path);
	assert_non_null(strstr(err, "no xray_instr_map section"));
	free(err);
	free(path);

	path = xasprintf("%s/text", tmpdir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("not an ELF file at all\n", f);
	fclose(f);
	err = load_err(path);
	assert_non_null(strstr(err, "not an ELF file"));
	free(err);
	free(path);

	err = load_err("/nonexistent/instrmap/binary");
	assert_non_null(strstr(err, "No such file"));
	free(err);
	err = load_err(tmpdir);	/* a directory */
	assert_non_null(strstr(err, "not a regular file"));
	free(err);

	/* the accessors take NULL */
	assert_int_equal(xray_instrmap_nfuncs(NULL), 0);
	assert_null(xray_instrmap_name(NULL, 1));
	xray_instrmap_free(NULL);
}

/* ---- the committed fixtures (built by clang) --------------------------- */

/* prog-c has sleds of every kind 0-5 (typed event included): all read,
 * the uninstrumented function has no id, nothing to warn about. */
static void
test_fixture_c(void **state)
{
	static const char *const want[] = {
		"fact", "scaled", "square", "announce", "main",
	};
	struct xray_instrmap *m = load_ok(fixture("prog-c"));
	size_t i;

	assert_int_equal(xray_instrmap_nfuncs(m), 5);
	for (i = 0; i < 5; i++) {
		assert_string_equal(xray_instrmap_name(m, (int32_t)i + 1),
		    want[i]);
		assert_true(xray_instrmap_addr(m, (int32_t)i + 1) != 0);
	}
	assert_int_equal(xray_instrmap_nwarnings(m), 0);
	xray_instrmap_free(m);
}

static void
test_fixture_cxx(void **state)
{
	struct xray_instrmap *m = load_ok(fixture("prog-cxx"));
	size_t i, n = xray_instrmap_nfuncs(m);
	bool area = false, helper = false, clink = false;
	const char *name;

	assert_true(n > 10);
	for (i = 1; i <= n; i++) {
		name = xray_instrmap_name(m, (int32_t)i);
		assert_non_null(name);
		assert_true(name[0] != '@');
#ifdef HAVE_CPLUS_DEMANGLE
		assert_true(strncmp(name, "_Z", 2) != 0);
		area |= strcmp(name, "geo::area(int, int)") == 0;
		helper |= strcmp(name, "(anonymous namespace)::helper(int)") == 0;
#else
		area |= strcmp(name, "_ZN3geo4areaEii") == 0;
		helper = true;
#endif
		clink |= strcmp(name, "c_linkage") == 0;
	}
	assert_true(area && helper && clink);
	xray_instrmap_free(m);
}

/* ---- discovery ---------------------------------------------------------- */

static void
copy_file(const char *from, const char *to)
{
	char buf[8192];
	size_t n;
	FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");

	assert_non_null(in);
	assert_non_null(out);
	while ((n = fread(buf, 1, sizeof buf, in)) > 0)
		assert_int_equal(fwrite(buf, 1, n, out), n);
	fclose(in);
	fclose(out);
}

static void
touch(const char *path)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fclose(f);
}

static void
test_discover(void **state)
{
	char *dir = xasprintf("%s/disc", tmpdir);
	char *sub = xasprintf("%s/disc/logs", tmpdir);
	char *p, *log, *found, cwd[4096];
	unsigned char map[32];
	struct gspec s = { ELFCLASS64, ELFDATA2LSB, EM_X86_64,
	    .map_addr = MAP_ADDR, .map = map, .map_size = sizeof map,
	    .no_map = true };

	assert_int_equal(mkdir(dir, 0755), 0);
	assert_int_equal(mkdir(sub, 0755), 0);

	/* beside the log; the program name has a dot */
	p = xasprintf("%s/my.app", dir);
	copy_file(fixture("prog-c"), p);
	log = xasprintf("%s/xray-log.my.app.Ab12Cd", dir);
	touch(log);
	found = xray_instrmap_discover(log);
	assert_non_null(found);
	assert_string_equal(found, p);
	free(found);
	free(log);
	free(p);

	/* no such program, a non-ELF one, an ELF one without a map */
	log = xasprintf("%s/xray-log.nothere.Ab12Cd", dir);
	assert_null(xray_instrmap_discover(log));
	free(log);
	p = xasprintf("%s/script", dir);
	touch(p);
	free(p);
	log = xasprintf("%s/xray-log.script.Ab12Cd", dir);
	assert_null(xray_instrmap_discover(log));
	free(log);
	free(write_elf("disc/plain", &s));
	log = xasprintf("%s/xray-log.plain.Ab12Cd", dir);
	assert_null(xray_instrmap_discover(log));
	free(log);
	/* not a log name */
	assert_null(xray_instrmap_discover("trace.bin"));
	assert_null(xray_instrmap_discover("xray-log.nosuffix"));
	assert_null(xray_instrmap_discover(NULL));

	/* in the current directory when not beside the log */
	assert_non_null(getcwd(cwd, sizeof cwd));
	assert_int_equal(chdir(dir), 0);
	log = xasprintf("%s/xray-log.my.app.Zz9Yy8", sub);
	touch(log);
	found = xray_instrmap_discover(log);
	assert_non_null(found);
	assert_string_equal(found, "my.app");
	free(found);
	free(log);
	/* a log given without a directory */
	found = xray_instrmap_discover("xray-log.my.app.Qq1Ww2");
	assert_non_null(found);
	assert_string_equal(found, "my.app");
	free(found);
	assert_int_equal(chdir(cwd), 0);
	free(dir);
	free(sub);
}

static int
setup(void **state)
{
	return mkdtemp(tmpdir) == NULL ? -1 : 0;
}

static int
teardown(void **state)
{
	char *cmd = xasprintf("rm -rf '%s'", tmpdir);
	int rc = system(cmd);

	free(cmd);
	return rc == 0 ? 0 : -1;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_v2_ids_and_names),
		cmocka_unit_test(test_v0_relocations_dynsym),
		cmocka_unit_test(test_elf32),
		cmocka_unit_test(test_big_endian),
		cmocka_unit_test(test_demangle),
		cmocka_unit_test(test_stripped),
		cmocka_unit_test(test_partial_entry),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_fixture_c),
		cmocka_unit_test(test_fixture_cxx),
		cmocka_unit_test(test_discover),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
