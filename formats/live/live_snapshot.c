/*
 * The loader's road to a live session (live.h): parse the URL, attach,
 * fetch what the relay has now into the mirror, and hand the client back
 * to be read as a CTF directory, or say why nothing can be read.
 */
#include <stdlib.h>

#include "live.h"
#include "xalloc.h"

struct live_client *
live_snapshot(const char *url, const struct load_options *opts, char **err)
{
	struct live_url u;

	if (live_url_parse(url, &u, err) != 0)
		return NULL;
	if (u.session == NULL) {
		live_url_free(&u);
		*err = xstrdup("a relay without a session: give "
		    "net://HOST[:PORT]/host/HOSTNAME/SESSION (ttv --info on "
		    "the relay's URL lists its sessions)");
		return NULL;
	}
	struct live_options o = {
		.from_now = opts->live_from_now,
		.notice = opts->notice, .notice_arg = opts->notice_arg,
	};
	struct live_client *c = live_client_open(&u, &o, NULL, NULL, err);
	live_url_free(&u);
	if (c == NULL)
		return NULL;
	live_client_fetch(c);
	/* The relay is let go before the mirror is read. */
	live_client_hangup(c);
	if (!live_client_has_data(c)) {
		/* The relay's own words when it went wrong, else: nothing
		 * yet. */
		struct builder *b = builder_new(url);
		live_client_report(c, b);
		struct trace *t = builder_finish(b);
		for (size_t i = 0; i < t->ndiags && *err == NULL; i++)
			if (t->diags[i].level == DIAG_ERROR)
				*err = xstrdup(t->diags[i].text);
		trace_free(t);
		if (*err == NULL)
			*err = xstrdup(live_client_ended(c) ? "session ended "
			    "without trace data" : "the session has no trace "
			    "data yet");
		live_client_close(c);
		return NULL;
	}
	return c;
}
