/*
 * Source lines, cached per function, and the editor (see source.h).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "source.h"
#include "term.h"
#include "xalloc.h"

struct source_entry {
	bool asked;
	int line;
	char *file;		/* or NULL, then why */
	char *why;
};

struct source_cache {
	const struct trace *t;
	source_find_fn find;
	void *arg;
	struct source_entry *e;	/* by func, made on first use */
};

struct source_cache *
source_cache_new(const struct trace *t, source_find_fn find, void *arg)
{
	struct source_cache *c = xcalloc(1, sizeof *c);

	c->t = t;
	c->find = find;
	c->arg = arg;
	return c;
}

void
source_cache_free(struct source_cache *c)
{
	if (c == NULL)
		return;
	if (c->e != NULL)
		for (uint32_t i = 0; i < c->t->nfuncs; i++) {
			free(c->e[i].file);
			free(c->e[i].why);
		}
	free(c->e);
	free(c);
}

int
source_of(struct source_cache *c, func_id f, const char **file, int *line,
    const char **why)
{
	static const char none[] = "no function";

	*file = NULL;
	*line = 0;
	*why = none;
	if (c == NULL || f >= c->t->nfuncs)
		return -1;
	if (c->e == NULL)
		c->e = xcalloc(c->t->nfuncs, sizeof *c->e);
	struct source_entry *e = &c->e[f];
	if (!e->asked) {
		const struct func_addr *fa = trace_func_addr(c->t, f);
		e->asked = true;
		if (fa == NULL)
			e->why = xstrdup("no address known for it: source "
			    "lines come from the binary of an XRay or CTF "
			    "cyg-profile trace");
		else if (c->find == NULL)
			e->why = xstrdup("no source lookup in this build");
		else if (c->find(c->arg, trace_str(c->t, fa->binary),
		    fa->addr, &e->file, &e->line, &e->why) != 0 &&
		    e->why == NULL)
			e->why = xstrdup("no source line");
	}
	if (e->file == NULL) {
		*why = e->why;
		return -1;
	}
	*file = e->file;
	*line = e->line;
	return 0;
}

int
source_edit(const char *file, int line, char **why)
{
	const char *ed = getenv("VISUAL");
	char at[32];
	struct sigaction ign, old_int, old_quit;
	int status;

	if (ed == NULL || *ed == '\0')
		ed = getenv("EDITOR");
	if (ed == NULL || *ed == '\0')
		ed = "vi";
	snprintf(at, sizeof at, "+%d", line);
	/* The editor's own words go through the shell, as git runs it ("code
	 * -w", "emacs -nw"); the file and line are arguments, never text
	 * of the command. */
	char *cmd = xasprintf("%s \"$@\"", ed);
	/* Ctrl-C is the editor's while it runs, as system() has it. */
	memset(&ign, 0, sizeof ign);
	ign.sa_handler = SIG_IGN;
	sigemptyset(&ign.sa_mask);
	term_suspend();
	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);
	pid_t pid = fork();
	if (pid == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGQUIT, SIG_DFL);
		execl("/bin/sh", "sh", "-c", cmd, "sh", at, file, (char *)NULL);
		_exit(127);
	}
	int err = errno;
	while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	term_resume();
	free(cmd);
	if (pid < 0) {
		*why = xasprintf("cannot run the editor: %s", strerror(err));
		return -1;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		*why = WIFEXITED(status) && WEXITSTATUS(status) == 127 ?
		    xasprintf("the editor '%s' was not found", ed) :
		    xasprintf("the editor '%s' failed", ed);
		return -1;
	}
	*why = NULL;
	return 0;
}
