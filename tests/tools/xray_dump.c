/*
 * xray_dump: loads a trace with load_trace() and prints its model in the
 * canonical text that tests/gen/xraygen.c writes as the expectation of
 * its fixtures: one line per slice (pid tid depth start dur name flags),
 * per slice argument, per marker and per record count. The shell test
 * sorts both and compares them exactly.
 *
 *   xray_dump TRACE     exit 0 = loaded (diagnostics on stderr), 1 = not
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "load.h"

static const char *
kind_name(int k)
{
	switch (k) {
	case MARKER_BUFFER_START: return "buffer-start";
	case MARKER_BUFFER_END: return "buffer-end";
	case MARKER_TSC_WRAP: return "tsc-wrap";
	case MARKER_CPU_CHANGE: return "cpu-change";
	case MARKER_CUSTOM_EVENT: return "custom-event";
	case MARKER_TYPED_EVENT: return "typed-event";
	case MARKER_DROPPED: return "dropped";
	default: return "other";
	}
}

static void
print_text(const char *s)
{
	/* the same escaping as the generator: printable ASCII but space and
	 * backslash as is, the rest as \xHH; of the bytes the trace gave,
	 * which the model holds as escape.h says (a NUL as C0 80) */
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (p[0] == 0xc0 && (p[1] == 0x80 || p[1] == 0xc0))
			printf("\\x%02x", *++p == 0x80 ? 0 : 0xc0);
		else if (*p >= 0x21 && *p < 0x7f && *p != '\\')
			putchar(*p);
		else
			printf("\\x%02x", *p);
	}
}

static void
track_key(const struct trace *t, uint32_t track, char *buf, size_t n)
{
	const struct track *tr = &t->tracks[track];
	snprintf(buf, n, "%" PRId64 " %" PRId64,
	    t->processes[tr->process].pid, tr->tid);
}

int
main(int argc, char **argv)
{
	struct load_options opts = { 0 };
	char *err = NULL;

	if (argc != 2) {
		fprintf(stderr, "usage: xray_dump TRACE\n");
		return 2;
	}
	struct trace *t = load_trace(argv[1], NULL, &opts, &err);
	if (t == NULL) {
		fprintf(stderr, "xray_dump: %s: %s\n", argv[1], err ? err : "?");
		free(err);
		return 1;
	}
	for (size_t i = 0; i < t->ndiags; i++)
		fprintf(stderr, "%s: %s\n", t->diags[i].level == DIAG_ERROR ?
		    "error" : "warning", t->diags[i].text);
	printf("format %s %s %s\n", t->format ? t->format : "?",
	    t->version ? t->version : "?",
	    t->byte_order ? t->byte_order : "?");
	for (uint32_t k = 0; k < t->ntracks; k++) {
		const struct track *tr = &t->tracks[k];
		char key[64];
		if (tr->kind != TRACK_THREAD)
			continue;
		track_key(t, k, key, sizeof key);
		for (uint32_t d = 0; d < tr->ndepth; d++) {
			for (size_t i = 0; i < tr->depth[d].len; i++) {
				const struct slice *s = &tr->depth[d].slices[i];
				char fl[8], *f = fl;
				if (s->flags & SLICE_UNTERMINATED)
					*f++ = 'U';
				if (s->flags & SLICE_TAIL_EXIT)
					*f++ = 'T';
				if (s->flags & SLICE_NO_ENTRY)
					*f++ = 'N';
				if (s->flags & SLICE_UNWOUND)
					*f++ = 'W';
				if (s->flags & SLICE_HAS_ARGS)
					*f++ = 'A';
				if (f == fl)
					*f++ = '-';
				*f = 0;
				printf("slice %s %" PRIu32 " %" PRId64 " %" PRId64
				    " %s %s\n", key, d, s->start,
				    level_dur(&tr->depth[d], i),
				    trace_func_name(t, s->func), fl);
				size_t na;
				struct slice_ref r = { k, d, (uint32_t)i };
				const struct arg *a = trace_slice_args(t, r, &na);
				for (size_t j = 0; j < na; j++)
					printf("arg %s %" PRIu32 " %" PRId64 " %s %"
					    PRIu64 "\n", key, d, s->start,
					    trace_str(t, a[j].name), a[j].v.u);
			}
		}
	}
	for (size_t i = 0; i < t->nmarkers; i++) {
		const struct marker *m = &t->markers[i];
		char key[64] = "- -";
		if (m->track < t->ntracks)
			track_key(t, m->track, key, sizeof key);
		printf("marker %s %s %" PRId64 " %" PRId64, kind_name(m->kind),
		    key, m->t, m->value);
		if (m->kind == MARKER_CUSTOM_EVENT ||
		    m->kind == MARKER_TYPED_EVENT) {
			putchar(' ');
			print_text(trace_str(t, m->text));
		}
		putchar('\n');
	}
	for (size_t i = 0; i < t->nrecords; i++)
		printf("count %s %" PRIu64 "\n", t->records[i].kind,
		    t->records[i].count);
	int rc = t->has_errors ? 1 : 0;
	trace_free(t);
	return rc;
}
