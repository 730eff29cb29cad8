/* --info: the lines of query_info (src/query_info.h), which the viewer's
 * info pane shows too; and a relay's sessions. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "escape.h"
#include "index.h"
#include "live.h"
#include "open_trace.h"
#include "cli_options.h"
#include "query_info.h"
#include "xalloc.h"

void
cli_info(const struct trace *t, const struct selection *sel, FILE *out)
{
	struct info_lines l;

	query_info(t, sel, &l);
	for (size_t i = 0; i < l.n; i++) {
		fputs(l.lines[i], out);
		putc('\n', out);
	}
	info_lines_free(&l);
}

/* A relay's sessions, one line each as babeltrace2 -i lttng-live lists
 * them: a session traced in several domains (several relay sessions of
 * one host and name) is one line, its streams added up. */
static void
print_sessions(const char *base, struct live_session_info *s, size_t n,
    FILE *out)
{
	for (size_t i = 0; i < n; i++) {
		bool seen = false;
		for (size_t j = 0; j < i && !seen; j++)
			seen = strcmp(s[j].hostname, s[i].hostname) == 0 &&
			    strcmp(s[j].name, s[i].name) == 0;
		if (seen)
			continue;
		uint64_t streams = 0;
		uint32_t clients = 0;
		for (size_t j = i; j < n; j++)
			if (strcmp(s[j].hostname, s[i].hostname) == 0 &&
			    strcmp(s[j].name, s[i].name) == 0) {
				streams += s[j].streams;
				if (s[j].clients > clients)
					clients = s[j].clients;
			}
		escape_fputs(base, out);
		fputs("/host/", out);
		escape_fputs(s[i].hostname, out);
		putc('/', out);
		escape_fputs(s[i].name, out);
		fprintf(out, " (timer = %u, %llu stream(s), %u client(s) "
		    "connected)\n", s[i].live_timer_us,
		    (unsigned long long)streams, clients);
	}
}

int
cli_info_relay(const char *url, FILE *out)
{
	struct live_url u;
	struct live_session_info *s;
	size_t n;
	char *err = NULL;

	if (live_url_parse(url, &u, &err) != 0) {
		cli_say(url, err);
		free(err);
		return TTV_EXIT_BAD_INPUT;
	}
	if (u.session != NULL) {
		live_url_free(&u);
		return CLI_RUN;
	}
	struct live_options o = { 0 };
	int rc = live_list(&u, &o, NULL, &s, &n, &err);
	if (rc != 0) {
		cli_say(url, err);
		free(err);
		live_url_free(&u);
		return TTV_EXIT_BAD_INPUT;
	}
	char *base = xstrdup(url);
	size_t len = strlen(base);
	while (len > 6 && base[len - 1] == '/')
		base[--len] = '\0';
	print_sessions(base, s, n, out);
	free(base);
	free(s);
	live_url_free(&u);
	return TTV_EXIT_OK;
}

void
cli_info_index(const struct index_report *r, FILE *out)
{
	if (r == NULL)
		return;
	switch (r->state) {
	case INDEX_STATE_OFF:
		fputs("index: none (", out);
		escape_fputs(r->why ? r->why : "--no-index", out);
		fputs(")\n", out);
		return;
	case INDEX_STATE_USED:
	case INDEX_STATE_BUILT:
	case INDEX_STATE_EXTENDED:
		fprintf(out, "index: %s ", r->state == INDEX_STATE_USED ?
		    "used" : r->state == INDEX_STATE_EXTENDED ? "extended" :
		    r->why != NULL ? "rebuilt" : "built");
		escape_fputs(r->file ? r->file : "", out);
		fprintf(out, " (%llu bytes)", (unsigned long long)r->size);
		if (r->state == INDEX_STATE_BUILT)
			fprintf(out, ", trace read in %.2f s", r->seconds);
		else if (r->state == INDEX_STATE_EXTENDED)
			fprintf(out, ", appended data read in %.2f s",
			    r->seconds);
		if (r->why != NULL) {
			fputs(": ", out);
			escape_fputs(r->why, out);
		}
		putc('\n', out);
		return;
	case INDEX_STATE_SKIPPED:
	case INDEX_STATE_UNAVAILABLE:
		fputs(r->state == INDEX_STATE_SKIPPED ? "index: skipped: " :
		    "index: none: ", out);
		escape_fputs(r->why ? r->why : "", out);
		putc('\n', out);
		return;
	}
}

void
cli_index_messages(const char *path, const struct index_report *r, FILE *err)
{
	if (r == NULL)
		return;
	if (r->state == INDEX_STATE_UNAVAILABLE ||
	    r->state == INDEX_STATE_EXTENDED ||
	    (r->state == INDEX_STATE_BUILT && r->why != NULL)) {
		fputs("ttv: ", err);
		escape_fputs(path, err);
		fputs(r->state == INDEX_STATE_BUILT ? ": index rebuilt: " :
		    r->state == INDEX_STATE_EXTENDED ? ": index extended: " :
		    ": warning: read without an index: ", err);
		escape_fputs(r->why ? r->why : "", err);
		putc('\n', err);
	}
}

bool
cli_index_damage(const char *path, const struct index_report *r,
    bool damaged, FILE *err)
{
	if (r == NULL || r->state != INDEX_STATE_USED || !damaged)
		return false;
	if (r->file != NULL)
		unlink(r->file);
	fputs("ttv: ", err);
	escape_fputs(path, err);
	fputs(": its index was damaged: what was shown may be wrong; the "
	    "index is removed, the next open rebuilds it\n", err);
	return true;
}
