/*
 * Damaged binaries given as instrumentation maps: the committed prog-c
 * fixture truncated at every byte, with bytes of its headers overwritten,
 * with random bit flips, and with the map's section header made to lie.
 * The reader must never crash or read out of bounds (run under ASan in
 * CI), and must either fail with a message or return a map whose every id
 * has a name.
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

#include "xalloc.h"
#include "xray_instrmap.h"

static unsigned char *orig;
static size_t orig_size;
static unsigned char *buf;
static int memfd = -1;
static char memfd_path[64];
static unsigned loads_ok, loads_failed;

/* Loads buf[0, len) as a map and checks the result is coherent. */
static void
try_load(size_t len)
{
	struct xray_instrmap *m;
	char *err = NULL;
	size_t i, n;

	assert_int_equal(ftruncate(memfd, 0), 0);
	assert_int_equal(pwrite(memfd, buf, len, 0), (ssize_t)len);
	m = xray_instrmap_load(memfd_path, &err);
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
restore(void)
{
	memcpy(buf, orig, orig_size);
}

static void
test_truncated(void **state)
{
	size_t len;

	loads_ok = loads_failed = 0;
	restore();
	for (len = 0; len < orig_size; len++)
		try_load(len);
	/* the section headers are at the end: no prefix is a whole map */
	assert_true(loads_failed > 0);
	try_load(orig_size);
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
	uint64_t x = 0x9e3779b97f4a7c15u;
	int round, k;

	for (round = 0; round < 3000; round++) {
		restore();
		for (k = 0; k < 1 + round % 4; k++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			buf[x % orig_size] ^= (unsigned char)(1u << (x >> 61));
		}
		try_load(orig_size);
	}
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
	const char *src = getenv("TTV_SRCDIR");
	char *path = xasprintf("%s/tests/data/instrmap/prog-c",
	    src != NULL ? src : ".");
	FILE *f = fopen(path, "rb");
	long size;

	if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) <= 0) {
		fprintf(stderr, "%s: cannot read the fixture (TTV_SRCDIR?)\n",
		    path);
		free(path);
		return -1;
	}
	free(path);
	rewind(f);
	orig_size = (size_t)size;
	orig = xmalloc(orig_size);
	buf = xmalloc(orig_size);
	if (fread(orig, 1, orig_size, f) != orig_size)
		return -1;
	fclose(f);
	/* An in-memory file keeps the many rewrites off the disk. */
	memfd = memfd_create("instrmap", 0);
	if (memfd < 0)
		return -1;
	snprintf(memfd_path, sizeof memfd_path, "/proc/self/fd/%d", memfd);
	return 0;
}

static int
teardown(void **state)
{
	close(memfd);
	free(orig);
	free(buf);
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
