/*
 * Where the program writes: the answer of a batch mode, to stdout or to
 * the file of --output (never over an input, never into a trace's
 * directory), and its messages, on stderr.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "escape.h"
#include "open_trace.h"
#include "xalloc.h"

void
cli_say(const char *path, const char *what)
{
	fputs("ttv: ", stderr);
	if (path != NULL) {
		escape_fputs(path, stderr);
		fputs(": ", stderr);
	}
	escape_fputs(what, stderr);
	putc('\n', stderr);
}

void
cli_warn(const char *path, const char *what)
{
	char *m = xasprintf("warning: %s", what);
	cli_say(path, m);
	free(m);
}

int
cli_usage_error(const char *what)
{
	cli_say(NULL, what);
	fputs("Try 'ttv --help' for more information.\n", stderr);
	return TTV_EXIT_USAGE;
}

bool
cli_output_dir_ok(const char *file)
{
	char *dir = xstrdup(file);
	char *slash = strrchr(dir, '/');
	bool ok;

	if (slash == NULL)
		ok = access(".", W_OK) == 0;
	else {
		if (slash == dir)
			slash[1] = '\0';
		else
			*slash = '\0';
		ok = access(dir, W_OK) == 0;
	}
	free(dir);
	if (!ok)
		cli_say(file, strerror(errno));
	return ok;
}

/* The directory part of path ("." for none). Caller frees. */
static char *
dir_of(const char *path)
{
	char *dir = xstrdup(path);
	char *slash = strrchr(dir, '/');
	if (slash == NULL) {
		free(dir);
		return xstrdup(".");
	}
	if (slash == dir)
		slash[1] = '\0';
	else
		*slash = '\0';
	return dir;
}

static bool
same_file(const struct stat *a, uint64_t dev, uint64_t ino)
{
	return (uint64_t)a->st_dev == dev && (uint64_t)a->st_ino == ino;
}

/* The input file FILE would overwrite (by device and inode: a link or
 * another name of it is the same file), or NULL. */
static const char *
input_at(const struct stat *st, size_t n, const struct trace *const ts[],
    const char *query_file)
{
	struct stat q;
	for (size_t k = 0; k < n; k++)
		for (size_t i = 0; i < ts[k]->nfiles; i++)
			if (same_file(st, ts[k]->files[i].dev,
			    ts[k]->files[i].ino))
				return ts[k]->files[i].path;
	if (query_file != NULL && stat(query_file, &q) == 0 &&
	    same_file(st, (uint64_t)q.st_dev, (uint64_t)q.st_ino))
		return query_file;
	return NULL;
}

/* For a trace directory: the file of the trace read in the directory
 * that would hold FILE (FILE would be read as part of that trace next
 * time), or NULL. */
static const char *
trace_dir_at(const char *file, const char *path, const struct trace *t)
{
	struct stat st, ds;
	if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
		return NULL;
	char *dir = dir_of(file);
	bool ok = stat(dir, &st) == 0;
	free(dir);
	size_t plen = strlen(path);
	for (size_t i = 0; ok && i < t->nfiles; i++) {
		/* the files under the trace's directory, not the binaries
		 * found elsewhere */
		const char *f = t->files[i].path;
		if (strncmp(f, path, plen) != 0 || f[plen] != '/')
			continue;
		char *d = dir_of(f);
		bool same = stat(d, &ds) == 0 && same_file(&st,
		    (uint64_t)ds.st_dev, (uint64_t)ds.st_ino);
		free(d);
		if (same)
			return f;
	}
	return NULL;
}

static FILE *
output_refused(const char *file, const char *why, const char *input, int fd)
{
	fputs("ttv: ", stderr);
	escape_fputs(file, stderr);
	fprintf(stderr, ": %s", why);
	if (input != NULL) {
		fputs(" (", stderr);
		escape_fputs(input, stderr);
		fputs(")", stderr);
	}
	putc('\n', stderr);
	if (fd >= 0)
		close(fd);
	return NULL;
}

FILE *
cli_open_output(const char *file, size_t n, const char *const paths[],
    const struct trace *const ts[], const char *query_file)
{
	struct stat st;
	const char *input;
	if (stat(file, &st) == 0 &&
	    (input = input_at(&st, n, ts, query_file)) != NULL)
		return output_refused(file, "output would overwrite the input",
		    input, -1);
	for (size_t k = 0; k < n; k++)
		if ((input = trace_dir_at(file, paths[k], ts[k])) != NULL)
			return output_refused(file, "output would go into the "
			    "trace's directory, to be read as part of the "
			    "trace", input, -1);
	int fd = open(file, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOCTTY, 0666);
	if (fd < 0 || fstat(fd, &st) != 0)
		return output_refused(file, strerror(errno), NULL, fd);
	if ((input = input_at(&st, n, ts, query_file)) != NULL)
		return output_refused(file, "output would overwrite the input",
		    input, fd);
	FILE *fp = NULL;
	if ((S_ISREG(st.st_mode) && ftruncate(fd, 0) != 0) ||
	    (fp = fdopen(fd, "w")) == NULL)
		return output_refused(file, strerror(errno), NULL, fd);
	return fp;
}

int
cli_close_output(FILE *out, const char *file)
{
	int rc = 0;

	if (fflush(out) != 0 || ferror(out)) {
		cli_say(file ? file : "stdout", strerror(errno));
		rc = -1;
	}
	if (out != stdout)
		fclose(out);
	return rc;
}
