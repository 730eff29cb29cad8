/*
 * Damaged binaries given as instrumentation maps: the committed prog-c
 * fixture truncated at every byte, with bytes of its headers overwritten,
 * with random bit flips, and with the map's section header made to lie.
 * The reader must never crash or read out of bounds (run under ASan in
 * CI), and must either fail with a message or return a map whose every id
 * has a name. The cuts and flips are the sweep of tests/lib/sweep.h; the
 * ELF damage is this test's own.
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
#include <sys/mman.h>
#include <cmocka.h>
#include <elf.h>

#include "sweep.h"
#include "xray/xray_instrmap.h"

static struct sweep sw;
static unsigned char *orig;	/* sw.orig and sw.buf, by shorter names */
static size_t orig_size;
static unsigned char *buf;
static unsigned loads_ok, loads_failed;

/* Loads p[0, len) as a map and checks the result is coherent. */
static void
check(struct sweep *s, const unsigned char *p, size_t len)
{
	struct xray_instrmap *m;
	char *err = NULL;
	size_t i, n;

	m = xray_instrmap_load(sweep_memfile(p, len), &err);
	if (m == NULL) {
		assert_non_null(err);
		assert_true(strlen(err) > 0);
		free(err);
		loads_failed++;
		return;
	}
	assert_null(err);
	n = xray_instrmap_nfuncs(m);
	for (i = 1; i <= n; i++)
		assert_non_null(xray_instrmap_name(m, (int32_t)i));
	assert_null(xray_instrmap_name(m, (int32_t)n + 1));
	for (i = 0; i < xray_instrmap_nwarnings(m); i++)
		assert_non_null(xray_instrmap_warning(m, i));
	xray_instrmap_free(m);
	loads_ok++;
}

static void
try_load(size_t len)
{
	check(&sw, buf, len);
}

static void
restore(void)
{
	memcpy(buf, orig, orig_size);
}

static void
test_truncated(void **state)
{
	loads_ok = loads_failed = 0;
	sweep_cuts(&sw, NULL);
	/* the section headers are at the end: no prefix is a whole map,
	 * the last cut is the whole file */
	assert_true(loads_failed > 0);
	assert_true(loads_ok > 0);
}

/* Every byte of the ELF header and the section header table set to 0x00
 * and to 0xff in turn. */
static void
test_headers_overwritten(void **state)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)orig;
	size_t i, shend, fill;

	assert_true(orig_size >= sizeof *eh);
	shend = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
	assert_true(shend <= orig_size);
	for (fill = 0; fill < 2; fill++) {
		for (i = 0; i < orig_size; i++) {
			if (i >= sizeof *eh && i < eh->e_shoff)
				continue;
			if (i >= shend)
				break;
			restore();
			buf[i] = fill ? 0xff : 0x00;
			try_load(orig_size);
		}
	}
}

/* Random bits flipped anywhere, a few at a time (fixed seed). */
static void
test_bit_flips(void **state)
{
	sweep_flips(&sw, 3000, 4, 0x9e3779b97f4a7c15u);
}

/* The map's own section header lies about its place and size. */
static void
test_lying_section(void **state)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)orig;
	const Elf64_Shdr *sh = (const Elf64_Shdr *)(orig + eh->e_shoff);
	const char *names = (const char *)orig + sh[eh->e_shstrndx].sh_offset;
	static const uint64_t sizes[] = {
		0, 1, 31, 33, 64 + 16, UINT32_MAX, UINT64_MAX / 2, UINT64_MAX,
	};
	Elf64_Shdr *map;
	size_t i, idx = 0;

	for (i = 1; i < eh->e_shnum; i++)
		if (strcmp(names + sh[i].sh_name, "xray_instr_map") == 0)
			idx = i;
	assert_true(idx != 0);
	for (i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		restore();
		map = (Elf64_Shdr *)(buf + eh->e_shoff) + idx;
		map->sh_size = sizes[i];
		try_load(orig_size);
		restore();
		map = (Elf64_Shdr *)(buf + eh->e_shoff) + idx;
		map->sh_offset = orig_size - 8 + i;
		try_load(orig_size);
		map->sh_offset = UINT64_MAX - i;
		try_load(orig_size);
	}
	/* symbol tables pointing at the wrong string table or nowhere */
	for (i = 1; i < eh->e_shnum; i++) {
		if (sh[i].sh_type != SHT_SYMTAB && sh[i].sh_type != SHT_DYNSYM &&
		    sh[i].sh_type != SHT_RELA)
			continue;
		restore();
		((Elf64_Shdr *)(buf + eh->e_shoff) + i)->sh_link = 0xffff;
		try_load(orig_size);
		restore();
		((Elf64_Shdr *)(buf + eh->e_shoff) + i)->sh_size = UINT64_MAX;
		try_load(orig_size);
	}
}

static int
setup(void **state)
{
	char *path = sweep_fixture("instrmap/prog-c");

	sweep_open(&sw, path, check, NULL);
	free(path);
	orig = sw.orig;
	orig_size = sw.n;
	buf = sw.buf;
	return 0;
}

static int
teardown(void **state)
{
	sweep_close(&sw);
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_headers_overwritten),
		cmocka_unit_test(test_bit_flips),
		cmocka_unit_test(test_lying_section),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
