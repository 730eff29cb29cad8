/* --info: the file's format, time base and contents, record and marker
 * counts, the diagnostics, and with --range the range and what is in it.
 * Lines are "key: value" so scripts can grep them; the thread list is
 * indented under "threads:". */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli_options.h"
#include "escape.h"
#include "index.h"
#include "live.h"
#include "open_trace.h"
#include "summary.h"
#include "timefmt.h"
#include "xalloc.h"

static void
print_time_range(const struct trace *t, FILE *out)
{
	char d[64];
	fprintf(out, "time range: %lld .. %lld ns (%s)\n", (long long)t->first,
	    (long long)t->last, timefmt_duration(t->last - t->first, d,
	    sizeof d));
}

/* --range: the range resolved, its length and how many slices of the
 * tracks shown overlap it. */
static void
print_range(const struct trace *t, const struct selection *sel, FILE *out)
{
	char d[64];
	fprintf(out, "range: %lld .. %lld ns (%s), from the start: +%lld .. "
	    "+%lld ns\n", (long long)sel->t0, (long long)sel->t1,
	    timefmt_duration(sel->t1 - sel->t0, d, sizeof d),
	    (long long)(sel->t0 - t->first), (long long)(sel->t1 - t->first));
	size_t n = 0;
	for (uint32_t i = 0; i < t->ntracks; i++) {
		if (!filter_track(&sel->f, i))
			continue;
		const struct track *tr = &t->tracks[i];
		for (uint32_t dd = 0; dd < tr->ndepth; dd++) {
			size_t lo, hi;
			query_window(tr, dd, sel->t0, sel->t1, &lo, &hi);
			n += hi - lo;
		}
	}
	fprintf(out, "slices in range: %zu\n", n);
}

static const char *const kind_names[] = {
	[TRACK_THREAD] = "thread", [TRACK_ASYNC] = "async",
	[TRACK_CPU] = "cpu", [TRACK_COUNTER] = "counter",
};

void
cli_info(const struct trace *t, const struct selection *sel, FILE *out)
{
	const struct filter *f = &sel->f;

	fputs("file: ", out);
	escape_fputs(t->path, out);
	fprintf(out, "\nformat: %s\n", t->format);
	if (t->version)
		fprintf(out, "version: %s\n", t->version);
	if (t->byte_order)
		fprintf(out, "byte order: %s\n", t->byte_order);
	if (t->ticks_per_second > 0)
		fprintf(out, "tick rate: %.0f Hz\n", t->ticks_per_second);
	else
		fputs("tick rate: unknown (times are raw ticks)\n", out);
	print_time_range(t, out);
	if (t->wall_origin != TTV_NS_MIN)
		fprintf(out, "wall clock origin: %lld ns since the epoch\n",
		    (long long)t->wall_origin);

	size_t counts[4] = { 0 }, slices = 0, instants = 0, samples = 0;
	size_t flagged[8] = { 0 };
	uint32_t maxdepth = 0;
	for (uint32_t i = 0; i < t->ntracks; i++) {
		const struct track *tr = &t->tracks[i];
		if (!filter_track(f, i))
			continue;
		counts[tr->kind]++;
		slices += tr->nslices;
		instants += tr->ninstants;
		samples += tr->nsamples;
		if (tr->ndepth > maxdepth)
			maxdepth = tr->ndepth;
		/* An index counted them when it was written. */
		if (t->summary != NULL && t->summary->tracks != NULL) {
			for (int b = 0; b < 8; b++)
				flagged[b] += t->summary->tracks[i].flagged[b];
			continue;
		}
		for (uint32_t d = 0; d < tr->ndepth; d++)
			for (size_t k = 0; k < tr->depth[d].len; k++) {
				/* most slices have no flag: one test for them */
				for (uint32_t fl = tr->depth[d].slices[k].flags;
				    fl != 0; fl &= fl - 1)
					flagged[__builtin_ctz(fl)]++;
			}
	}
	fprintf(out, "processes: %u\n", t->nprocesses);
	fprintf(out, "threads: %zu\n", counts[TRACK_THREAD]);
	for (uint32_t i = 0; i < t->ntracks; i++) {
		const struct track *tr = &t->tracks[i];
		if (!filter_track(f, i))
			continue;
		char buf[64];
		const struct process *p = &t->processes[tr->process];
		fprintf(out, "  %s pid %lld tid %lld \"", kind_names[tr->kind],
		    (long long)p->pid, (long long)tr->tid);
		escape_fputs(track_label(t, tr, buf, sizeof buf), out);
		fprintf(out, "\": %zu slices, depth %u, %zu instants, "
		    "%zu samples\n", tr->nslices, tr->ndepth, tr->ninstants,
		    tr->nsamples);
	}
	if (counts[TRACK_ASYNC])
		fprintf(out, "async tracks: %zu\n", counts[TRACK_ASYNC]);
	if (counts[TRACK_CPU])
		fprintf(out, "cpu tracks: %zu\n", counts[TRACK_CPU]);
	if (counts[TRACK_COUNTER])
		fprintf(out, "counter tracks: %zu\n", counts[TRACK_COUNTER]);
	fprintf(out, "functions: %u\n", t->nfuncs);
	fprintf(out, "slices: %zu\n", slices);
	static const char *const flag_names[8] = {
		"unterminated", "tail exit", "no entry", "unwound", "with args",
		"instant", "truncated", "?",
	};
	for (int b = 0; b < 8; b++)
		if (flagged[b])
			fprintf(out, "  %s: %zu\n", flag_names[b], flagged[b]);
	fprintf(out, "max depth: %u\n", maxdepth);
	size_t all = trace_nslices(t), mem = trace_memory(t);
	fprintf(out, "model memory: %zu bytes", mem);
	if (all > 0)
		fprintf(out, " (%.1f bytes per slice)", (double)mem / (double)all);
	putc('\n', out);
	fprintf(out, "instants: %zu\n", instants);
	fprintf(out, "counter samples: %zu\n", samples);
	fprintf(out, "flows: %zu\n", t->nflows);
	fprintf(out, "logs: %zu\n", t->nlogs);

	fputs("records:\n", out);
	for (size_t i = 0; i < t->nrecords; i++) {
		fputs("  ", out);
		escape_fputs(t->records[i].kind, out);
		fprintf(out, ": %llu\n", (unsigned long long)t->records[i].count);
	}
	size_t mk[MARKER_KIND_COUNT] = { 0 };
	for (size_t i = 0; i < t->nmarkers; i++)
		if (t->markers[i].track >= t->ntracks ||
		    filter_track(f, t->markers[i].track))
			mk[t->markers[i].kind < MARKER_KIND_COUNT ?
			    t->markers[i].kind : 0]++;
	fputs("markers:\n", out);
	for (int k = 0; k < MARKER_KIND_COUNT; k++)
		if (mk[k])
			fprintf(out, "  %s: %zu\n", marker_kind_name(k), mk[k]);
	if (t->nmeta > 0) {
		fputs("metadata:\n", out);
		for (size_t i = 0; i < t->nmeta; i++) {
			fputs("  ", out);
			escape_fputs(t->meta_keys[i], out);
			fputs(": ", out);
			escape_fputs(t->meta_values[i], out);
			putc('\n', out);
		}
	}
	size_t nwarn = 0, nerr = 0;
	for (size_t i = 0; i < t->ndiags; i++)
		if (t->diags[i].level == DIAG_ERROR)
			nerr++;
		else
			nwarn++;
	fprintf(out, "errors: %zu\nwarnings: %zu\n", nerr, nwarn);
	for (size_t i = 0; i < t->ndiags; i++) {
		fputs(t->diags[i].level == DIAG_ERROR ? "  error: " :
		    "  warning: ", out);
		escape_fputs(t->diags[i].text, out);
		putc('\n', out);
	}
	if (t->ndiags_dropped)
		fprintf(out, "  (%llu more not shown)\n",
		    (unsigned long long)t->ndiags_dropped);
	if (sel->ranged)
		print_range(t, sel, out);
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
		fprintf(out, "index: %s ", r->state == INDEX_STATE_USED ?
		    "used" : r->why != NULL ? "rebuilt" : "built");
		escape_fputs(r->file ? r->file : "", out);
		fprintf(out, " (%llu bytes)", (unsigned long long)r->size);
		if (r->state == INDEX_STATE_BUILT)
			fprintf(out, ", trace read in %.2f s", r->seconds);
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
	    (r->state == INDEX_STATE_BUILT && r->why != NULL)) {
		fputs("ttv: ", err);
		escape_fputs(path, err);
		fputs(r->state == INDEX_STATE_BUILT ? ": index rebuilt: " :
		    ": warning: read without an index: ", err);
		escape_fputs(r->why ? r->why : "", err);
		putc('\n', err);
	}
}

bool
cli_index_damage(const char *path, const struct index_report *r, FILE *err)
{
	if (r == NULL || r->state != INDEX_STATE_USED || !index_damage_seen())
		return false;
	if (r->file != NULL)
		unlink(r->file);
	fputs("ttv: ", err);
	escape_fputs(path, err);
	fputs(": its index was damaged: what was shown may be wrong; the "
	    "index is removed, the next open rebuilds it\n", err);
	return true;
}
