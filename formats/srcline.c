/*
 * Source lines from DWARF (see srcline.h). Each binary is reported to its
 * own libdwfl session as an offline module, once; a lookup finds the
 * compilation unit of the address (by .debug_aranges, else by asking
 * each unit: clang writes no aranges unless told to), the subprogram
 * around it and its declaration's file and line (the line of the
 * function's name, where an editor should open), or else the line
 * table's line for the address.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

#include "srcline.h"
#include "xalloc.h"

struct binary {
	char *path;
	Dwfl *dwfl;		/* NULL: could not be read */
	Dwfl_Module *mod;
	char *why;		/* why not, when dwfl is NULL */
};

struct srcline {
	VEC(struct binary) bins;
};

/* Separate debug files are looked for where the system keeps them. */
static char *debuginfo_path;
static const Dwfl_Callbacks offline_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

struct srcline *
srcline_new(void)
{
	return xcalloc(1, sizeof(struct srcline));
}

void
srcline_free(struct srcline *s)
{
	if (s == NULL)
		return;
	for (size_t i = 0; i < s->bins.len; i++) {
		struct binary *b = &s->bins.items[i];
		if (b->dwfl != NULL)
			dwfl_end(b->dwfl);
		free(b->path);
		free(b->why);
	}
	VEC_FREE(&s->bins);
	free(s);
}

/* Opens path for libdwfl: a regular file, never waited for. */
static void
open_binary(struct binary *b)
{
	struct stat st;
	int fd = open(b->path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);

	if (fd < 0) {
		b->why = xasprintf("%s: %s", b->path, strerror(errno));
		return;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		b->why = xasprintf("%s: not a regular file", b->path);
		close(fd);
		return;
	}
	b->dwfl = dwfl_begin(&offline_callbacks);
	if (b->dwfl == NULL) {
		b->why = xasprintf("%s: %s", b->path, dwfl_errmsg(-1));
		close(fd);
		return;
	}
	/* libdwfl takes the descriptor (closed by dwfl_end) */
	b->mod = dwfl_report_offline(b->dwfl, b->path, b->path, fd);
	if (b->mod == NULL) {
		b->why = xasprintf("%s: not an ELF file (%s)", b->path,
		    dwfl_errmsg(-1));
		close(fd);
		dwfl_end(b->dwfl);
		b->dwfl = NULL;
		return;
	}
	dwfl_report_end(b->dwfl, NULL, NULL);
}

static struct binary *
binary(struct srcline *s, const char *path)
{
	for (size_t i = 0; i < s->bins.len; i++)
		if (strcmp(s->bins.items[i].path, path) == 0)
			return &s->bins.items[i];
	struct binary nb = { .path = xstrdup(path) };
	open_binary(&nb);
	VEC_PUSH(&s->bins, nb);
	return &s->bins.items[s->bins.len - 1];
}

/* f as a path from the root: a compiler may write it relative to the
 * directory it ran in, the unit's comp_dir (caller frees). */
static char *
absolute(Dwarf_Die *cu, const char *f)
{
	Dwarf_Attribute a;
	const char *dir = f[0] == '/' ? NULL :
	    dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &a));
	return dir != NULL && dir[0] != '\0' ? xasprintf("%s/%s", dir, f) :
	    xstrdup(f);
}

/* The declaration's place of the outermost subprogram around pc. */
static bool
decl_of(Dwarf_Die *cu, Dwarf_Addr pc, char **file, int *line)
{
	Dwarf_Die *scopes = NULL;
	int n = dwarf_getscopes(cu, pc, &scopes);
	bool found = false;

	for (int i = n - 1; i >= 0 && !found; i--) {
		Dwarf_Die *d = &scopes[i];
		if (dwarf_tag(d) != DW_TAG_subprogram)
			continue;
		const char *f = dwarf_decl_file(d);
		int l = 0;
		if (f == NULL) {
			/* DWARF 5's file 0, which libdw 0.188 does not name:
			 * the file of the code at pc, the function's own */
			Dwarf_Line *ln = dwarf_getsrc_die(cu, pc);
			f = ln != NULL ? dwarf_linesrc(ln, NULL, NULL) : NULL;
		}
		if (f != NULL && dwarf_decl_line(d, &l) == 0 && l > 0) {
			*file = absolute(cu, f);
			*line = l;
			found = true;
		}
	}
	free(scopes);
	return found;
}

int
srcline_find(struct srcline *s, const char *path, uint64_t addr,
    char **file, int *line, char **why)
{
	struct binary *b = binary(s, path);
	GElf_Addr elf_bias = 0;
	Dwarf_Addr dw_bias = 0;

	*file = NULL;
	*line = 0;
	*why = NULL;
	if (b->dwfl == NULL) {
		*why = xstrdup(b->why);
		return -1;
	}
	if (dwfl_module_getelf(b->mod, &elf_bias) == NULL) {
		*why = xasprintf("%s: %s", path, dwfl_errmsg(-1));
		return -1;
	}
	if (dwfl_module_getdwarf(b->mod, &dw_bias) == NULL) {
		*why = xasprintf("no debug info in %s (built without -g?)",
		    path);
		return -1;
	}
	/* the binary's address as libdwfl placed the module */
	Dwarf_Addr at = (Dwarf_Addr)addr + elf_bias;
	Dwarf_Die *cu = dwfl_module_addrdie(b->mod, at, &dw_bias);
	Dwarf_Die each;
	for (Dwarf_Die *c = NULL; cu == NULL &&
	    (c = dwfl_module_nextcu(b->mod, c, &dw_bias)) != NULL;)
		if (dwarf_haspc(c, at - dw_bias) == 1) {
			each = *c;
			cu = &each;
		}
	if (cu == NULL) {
		*why = xasprintf("no debug info for 0x%" PRIx64 " in %s",
		    addr, path);
		return -1;
	}
	Dwarf_Addr pc = at - dw_bias;
	if (decl_of(cu, pc, file, line))
		return 0;
	Dwarf_Line *l = dwarf_getsrc_die(cu, pc);
	int lineno = 0;
	const char *f = l != NULL ? dwarf_linesrc(l, NULL, NULL) : NULL;
	if (f != NULL && dwarf_lineno(l, &lineno) == 0 && lineno > 0) {
		*file = absolute(cu, f);
		*line = lineno;
		return 0;
	}
	*why = xasprintf("no source line for 0x%" PRIx64 " in the debug info "
	    "of %s", addr, path);
	return -1;
}

int
srcline_find_fn(void *s, const char *binary, uint64_t addr, char **file,
    int *line, char **why)
{
	return srcline_find(s, binary, addr, file, line, why);
}
