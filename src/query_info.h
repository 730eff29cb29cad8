/*
 * What a trace is and what is in it: its format, time base and clock,
 * processes and threads, record, slice and marker counts, the
 * metadata the reader kept (program, command line, environment where the
 * format records them) and the diagnostics, and with a range the range
 * and what is in it. One query makes the lines that `--info` prints and
 * the viewer's info pane shows, so the two cannot disagree.
 *
 * Lines are "key: value" so that scripts can grep them; the thread list
 * and the counts by kind are indented under their heading. Text from the
 * trace is in the text form (escape.h): a line holds no control
 * character and is valid UTF-8.
 */
#ifndef TTV_QUERY_INFO_H
#define TTV_QUERY_INFO_H

#include <stddef.h>

#include "model.h"
#include "scope.h"

struct info_lines {
	char **lines;		/* without their newline; owned */
	size_t n;
};

/* The lines of t for the tracks sel's filter lets through (the range's
 * when sel->ranged). */
void query_info(const struct trace *t, const struct selection *sel,
    struct info_lines *out);
void info_lines_free(struct info_lines *l);

#endif
