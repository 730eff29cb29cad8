/* What a follower has told so far, per thread (told.h). */
#include <stdlib.h>

#include "hashmap.h"
#include "told.h"
#include "xalloc.h"

/* How far one kind of row of one thread was told: rows after (t, sub)
 * are new. For calls sub is the depth negated (an inner call ends
 * first); for rows at a time, how many at exactly t were told. */
struct mark {
	ttv_ns t;
	int64_t sub;
	bool any;
	/* This round: rows met at exactly t so far, and how far it told
	 * (the mark from the next round on: within a round, calls come by
	 * their start, not by the order the mark counts in). */
	int64_t met_at_t;
	ttv_ns next_t;
	int64_t next_sub;
	bool next_any;
};

struct thread_told {
	struct mark m[TOLD_KINDS];
};

struct told {
	struct hashmap ids;		/* (kind<<32|pid, tid) -> thread */
	struct thread_told *threads;
	size_t nthreads;
	const struct trace *t;
	uint32_t *of_track;		/* the round's track -> thread */
	uint32_t no_track;		/* rows tied to no track */
	ttv_ns base;			/* absolute time of model time 0 */
};

struct told *
told_new(void)
{
	struct told *k = xcalloc(1, sizeof *k);
	return k;
}

void
told_forget(struct told *k)
{
	hashmap_free(&k->ids);
	k->ids = (struct hashmap){ 0 };
	free(k->threads);
	k->threads = NULL;
	k->nthreads = 0;
	free(k->of_track);
	k->of_track = NULL;
	k->t = NULL;
}

void
told_free(struct told *k)
{
	if (k == NULL)
		return;
	told_forget(k);
	free(k);
}

static uint32_t
thread_of(struct told *k, uint64_t k1, uint64_t k2)
{
	uint32_t v;
	if (hashmap_get(&k->ids, k1, k2, &v))
		return v;
	k->threads = xreallocarray(k->threads, k->nthreads + 1,
	    sizeof *k->threads);
	k->threads[k->nthreads] = (struct thread_told){ 0 };
	v = (uint32_t)k->nthreads++;
	hashmap_put(&k->ids, k1, k2, v);
	return v;
}

void
told_round(struct told *k, const struct trace *t)
{
	k->t = t;
	/* Times are kept absolute: model time 0 may move between reads
	 * (a CTF trace's origin is its first event). */
	k->base = t->wall_origin != TTV_NS_MIN ? t->wall_origin : 0;
	free(k->of_track);
	k->of_track = xcalloc(t->ntracks ? t->ntracks : 1,
	    sizeof *k->of_track);
	for (uint32_t i = 0; i < t->ntracks; i++) {
		const struct track *tr = &t->tracks[i];
		int64_t pid = tr->process < t->nprocesses ?
		    t->processes[tr->process].pid : -1;
		k->of_track[i] = thread_of(k, (uint64_t)tr->kind << 32 ^
		    (uint64_t)pid, (uint64_t)tr->tid);
	}
	k->no_track = thread_of(k, UINT64_MAX, UINT64_MAX);
	for (size_t i = 0; i < k->nthreads; i++)
		for (int j = 0; j < TOLD_KINDS; j++) {
			struct mark *m = &k->threads[i].m[j];
			if (m->next_any) {
				m->t = m->next_t;
				m->sub = m->next_sub;
				m->any = true;
			}
			m->next_any = false;
			m->met_at_t = 0;
		}
}

bool
told_call(struct told *k, struct slice_ref r)
{
	const struct trace *t = k->t;
	const struct slice *s = trace_slice(t, r);
	if (s->flags & SLICE_UNTERMINATED)
		return false;
	ttv_ns end = s->start + trace_slice_dur(t, r);
	if (end > t->complete_until)
		return false;
	struct mark *m = &k->threads[k->of_track[r.track]].m[TOLD_CALL];
	ttv_ns at = (ttv_ns)((uint64_t)end + (uint64_t)k->base);
	int64_t sub = -(int64_t)r.depth;
	if (m->any && (at < m->t || (at == m->t && sub <= m->sub)))
		return false;
	if (!m->next_any || at > m->next_t || (at == m->next_t &&
	    sub > m->next_sub)) {
		m->next_t = at;
		m->next_sub = sub;
		m->next_any = true;
	}
	return true;
}

/* A row tied to no track, by what it says: a CTF packet marker names
 * its stream, and the streams of a trace come apart. */
static uint32_t
lane_of(struct told *k, const char *lane)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (const char *p = lane; *p != '\0'; p++)
		h = (h ^ (unsigned char)*p) * 0x100000001b3ull;
	return thread_of(k, UINT64_MAX - 1, h);
}

bool
told_point(struct told *k, enum told_kind kind, uint32_t track,
    const char *lane, ttv_ns t)
{
	if (t > k->t->complete_until)
		return false;
	uint32_t th = track < k->t->ntracks ? k->of_track[track] :
	    lane != NULL ? lane_of(k, lane) : k->no_track;
	struct mark *m = &k->threads[th].m[kind];
	ttv_ns at = (ttv_ns)((uint64_t)t + (uint64_t)k->base);
	if (m->any && at < m->t)
		return false;
	/* rows at the mark's time: the ones told before come first */
	bool tie = m->any && at == m->t;
	if (tie && ++m->met_at_t <= m->sub)
		return false;
	if (!m->next_any || at > m->next_t) {
		m->next_t = at;
		m->next_sub = tie ? m->met_at_t : 1;
		m->next_any = true;
	} else if (at == m->next_t) {
		m->next_sub = tie ? m->met_at_t : m->next_sub + 1;
	}
	return true;
}
