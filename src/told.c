/* What a follower has told so far, per thread (told.h). */
#include <stdlib.h>
#include <string.h>

#include "hashmap.h"
#include "level.h"
#include "strtab.h"
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

/* How far the whole rows of one track went in an earlier read, for calls
 * and instants: rows of a track come in order (told.h), so what is
 * before is no news, told or not (a search of the next round leaves it
 * out). A track is found again by its thread and name. */
enum { SEEN_CALL, SEEN_INSTANT, SEEN_KINDS };
struct track_seen {
	ttv_ns t[SEEN_KINDS];		/* absolute; TTV_NS_MIN: none */
	ttv_ns next[SEEN_KINDS];	/* this round's, from the next on */
	bool met;			/* a track of this round is it */
};

/* How far a list of the trace in time order (log records, markers) was
 * gone through: the first `count` rows, those before `from`, were all
 * in an earlier read, up to where it was complete, so each was told then
 * or never will be. */
struct list_seen {
	ttv_ns from;			/* absolute */
	size_t count;
	bool any;
	ttv_ns next_from;		/* this round's, from the next on */
	size_t next_count;
	bool next_any;
};

struct told {
	struct hashmap ids;		/* (kind<<32|pid, tid) -> thread */
	struct thread_told *threads;
	size_t nthreads;
	const struct trace *t;
	uint32_t *of_track;		/* the round's track -> thread */
	uint32_t no_track;		/* rows tied to no track */
	struct hashmap seen_ids;	/* (name, thread) -> track_seen */
	struct track_seen *seen;
	size_t nseen;
	uint32_t *seen_of_track;	/* the round's track -> track_seen */
	struct list_seen logs, markers;
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
	hashmap_free(&k->seen_ids);
	k->seen_ids = (struct hashmap){ 0 };
	free(k->seen);
	k->seen = NULL;
	k->nseen = 0;
	free(k->seen_of_track);
	k->seen_of_track = NULL;
	k->logs = k->markers = (struct list_seen){ 0 };
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

/* The end of the last whole call of a track (one whose end is there and
 * known complete), absolute; TTV_NS_MIN if none. Each depth's ends are
 * sorted, and only its last calls can still be open. */
static ttv_ns
last_whole_call(const struct trace *t, const struct track *tr, ttv_ns base)
{
	ttv_ns last = TTV_NS_MIN;
	for (uint32_t d = 0; d < tr->ndepth; d++) {
		const struct depth_level *l = &tr->depth[d];
		size_t i = level_first_ending_in(l, t->complete_until, 0,
		    l->len);
		while (i > 0 && (l->slices[i - 1].flags & SLICE_UNTERMINATED))
			i--;
		if (i > 0 && level_end(l, i - 1) > last)
			last = level_end(l, i - 1);
	}
	return last == TTV_NS_MIN ? last : (ttv_ns)((uint64_t)last +
	    (uint64_t)base);
}

/* The time of the last instant of a track known complete, absolute. */
static ttv_ns
last_whole_instant(const struct trace *t, const struct track *tr,
    ttv_ns base)
{
	size_t i = tr->ninstants;
	while (i > 0 && tr->instants[i - 1].t > t->complete_until)
		i--;
	return i == 0 ? TTV_NS_MIN : (ttv_ns)((uint64_t)tr->instants[i -
	    1].t + (uint64_t)base);
}

/* The time of row i of a list (TOLD_LOG or TOLD_MARKER), and its
 * length. */
static size_t
list_len(const struct trace *t, enum told_kind kind)
{
	return kind == TOLD_LOG ? t->nlogs : t->nmarkers;
}

static ttv_ns
list_t(const struct trace *t, enum told_kind kind, size_t i)
{
	return kind == TOLD_LOG ? t->logs[i].t : t->markers[i].t;
}

/* The first row of a list at or after model time `at`. */
static size_t
list_first(const struct trace *t, enum told_kind kind, ttv_ns at)
{
	size_t lo = 0, hi = list_len(t, kind);
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (list_t(t, kind, mid) >= at)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* A list's rows up to where this read is complete are gone through by
 * this round: from the next one on, those before the last of them need
 * not be again. */
static void
list_round(struct told *k, const struct trace *t, enum told_kind kind,
    struct list_seen *l)
{
	l->from = l->next_from;
	l->count = l->next_count;
	l->any = l->next_any;
	size_t n = list_first(t, kind, t->complete_until);
	/* (rows at complete_until itself are whole too) */
	while (n < list_len(t, kind) && list_t(t, kind, n) ==
	    t->complete_until)
		n++;
	l->next_any = n > 0;
	if (n == 0)
		return;
	ttv_ns last = list_t(t, kind, n - 1);
	l->next_from = (ttv_ns)((uint64_t)last + (uint64_t)k->base);
	l->next_count = list_first(t, kind, last);
}

/* What the earlier rounds saw becomes the floor of this one, and this
 * round's tracks say how far they go for the next. */
static void
seen_round(struct told *k, const struct trace *t)
{
	for (size_t i = 0; i < k->nseen; i++) {
		struct track_seen *s = &k->seen[i];
		if (s->met)
			for (int j = 0; j < SEEN_KINDS; j++)
				s->t[j] = s->next[j];
		s->met = false;
	}
	free(k->seen_of_track);
	k->seen_of_track = xcalloc(t->ntracks ? t->ntracks : 1,
	    sizeof *k->seen_of_track);
	for (uint32_t i = 0; i < t->ntracks; i++) {
		const struct track *tr = &t->tracks[i];
		uint32_t v;
		const char *nm = trace_str(t, tr->name);
		uint64_t name = hash_bytes(nm, strlen(nm));
		if (!hashmap_get(&k->seen_ids, name, k->of_track[i], &v)) {
			k->seen = xreallocarray(k->seen, k->nseen + 1,
			    sizeof *k->seen);
			struct track_seen *s = &k->seen[k->nseen];
			for (int j = 0; j < SEEN_KINDS; j++)
				s->t[j] = s->next[j] = TTV_NS_MIN;
			s->met = false;
			v = (uint32_t)k->nseen++;
			hashmap_put(&k->seen_ids, name, k->of_track[i], v);
		}
		k->seen_of_track[i] = v;
		struct track_seen *s = &k->seen[v];
		ttv_ns c = last_whole_call(t, tr, k->base);
		ttv_ns p = last_whole_instant(t, tr, k->base);
		/* two tracks of one name in a thread: the earlier of the two */
		if (!s->met || c < s->next[SEEN_CALL])
			s->next[SEEN_CALL] = c;
		if (!s->met || p < s->next[SEEN_INSTANT])
			s->next[SEEN_INSTANT] = p;
		s->met = true;
	}
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
	seen_round(k, t);
	list_round(k, t, TOLD_LOG, &k->logs);
	list_round(k, t, TOLD_MARKER, &k->markers);
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
	return thread_of(k, UINT64_MAX - 1, hash_bytes(lane, strlen(lane)));
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

/* An absolute time as the round's model time. */
static ttv_ns
model_time(const struct told *k, ttv_ns at)
{
	if (at == TTV_NS_MIN)
		return at;
	return (ttv_ns)((uint64_t)at - (uint64_t)k->base);
}

ttv_ns
told_from(const struct told *k, enum told_kind kind, uint32_t track)
{
	if (track >= k->t->ntracks || (kind != TOLD_CALL &&
	    kind != TOLD_INSTANT))
		return TTV_NS_MIN;
	const struct mark *m = &k->threads[k->of_track[track]].m[kind];
	ttv_ns at = m->any ? m->t : TTV_NS_MIN;
	ttv_ns seen = k->seen[k->seen_of_track[track]].t[kind == TOLD_CALL ?
	    SEEN_CALL : SEEN_INSTANT];
	if (seen > at)
		at = seen;
	return model_time(k, at);
}

size_t
told_list_from(const struct told *k, enum told_kind kind)
{
	const struct list_seen *l = kind == TOLD_LOG ? &k->logs :
	    kind == TOLD_MARKER ? &k->markers : NULL;
	if (l == NULL || !l->any)
		return 0;
	/* the rows before it are the same as then, unless some came since
	 * (a thread or a stream behind the others): then all may be new */
	size_t i = list_first(k->t, kind, model_time(k, l->from));
	return i == l->count ? i : 0;
}
