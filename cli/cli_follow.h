/* --follow: --search and --markers on a trace being written (cli_follow.c). */
#ifndef TTV_CLI_FOLLOW_H
#define TTV_CLI_FOLLOW_H

#include <stdio.h>

#include "cli_options.h"

/* Writes the rows of c's mode to out as the trace at c->path grows,
 * until it ends or the user stops it. Returns the exit status: 0 when
 * the input ended, 1 after damage or when out could not be written,
 * 2 for a pattern the regex budget could not decide, 130 when stopped
 * (SIGINT, SIGTERM). */
int cli_follow(struct cli_args *c, FILE *out);

/* The viewer on the trace at c->path as it grows (--follow without a
 * batch mode): the exit status, as the viewer's. */
int cli_follow_view(struct cli_args *c);

#endif
