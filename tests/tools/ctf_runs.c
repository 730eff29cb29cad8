/*
 * Raw runs that keep every event (ctf_runs.h), for the tests: the fast
 * loop of formats/ctf/ctf_fast.h with a step that takes nothing.
 */
#include "config.h"

#include "ctf/stream/ctf_fast.h"
#include "ctf_runs.h"

static bool
keep_all(void *arg, struct ctf_item *it)
{
	(void)arg;
	(void)it;
	return true;
}

size_t
ctf_event_run_raw(struct ctf_stream *s, const struct ctf_packet_info *pkt,
    struct ctf_item *out, size_t max)
{
	size_t decoded;
	return ctf_run_raw_each(s, pkt, out, max, max, &decoded, keep_all,
	    NULL);
}
