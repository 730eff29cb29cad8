/*
 * The interactive viewer: runs the full-screen panes on a loaded trace.
 */
#ifndef TTV_VIEWER_H
#define TTV_VIEWER_H

#include "model.h"
#include "query.h"

#include "reader.h"

struct viewer_options {
	const char *force_format;	/* --format NAME, or NULL */
	const int64_t *tids;		/* --thread list, may be NULL */
	size_t ntids;
	const char *function_regex;	/* --function REGEX, or NULL */
};

/* Opens the terminal, loads path with load_trace() (showing progress on the
 * status line), and runs the panes until the user quits. Returns the
 * process exit status (0 ok, 1 unreadable input, 2 no usable terminal). */
int viewer_main(const char *path, const struct load_options *lopts,
    const struct viewer_options *vopts);

#endif
