/*
 * The second half of the FXT scan pass, on a second thread while the
 * reading thread scans the first half (fxt.c, scan_walk).
 *
 * Records do not say where they start, so the half begins at a boundary
 * guessed by walking a few hundred records from about the middle; the
 * guess is proven (or thrown away) when the reading thread's own walk
 * reaches it: records chain by their sizes, so landing exactly there means
 * the two walks agree from there on.
 *
 * The tables (providers, strings, threads, tick rates) at the middle are
 * only known once the first half is done, so this scan keeps what it finds
 * per thread table slot of the current provider, in ticks: the events,
 * their first and last time, whether time went backwards, ends with args.
 * Merging resolves the slots and converts the times with the tables the
 * first half left. It stops at the first record it cannot scan that way
 * (provider, initialization, thread, kernel object, scheduling and log
 * records, inline thread refs, damaged framing); the reading thread scans
 * on from there, so what it finds is what the serial scan would find.
 * String records only intern their text, which the merge does in order.
 */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "fxt_int.h"
#include "env.h"

#define HALF_MIN (64u << 20)	/* smaller traces: one thread scans */
#define SYNC_RECORDS 512	/* records that must chain to trust a guess */
#define SYNC_SPAN (1u << 20)	/* how far to look for a boundary */

struct fxt_slot {
	uint64_t nev;		/* events bound to the thread's stack */
	uint64_t first, last;	/* ticks: first event, latest in order */
	bool used, back, end_args;
};

struct fxt_half {
	pthread_t thread;
	const unsigned char *data;
	size_t size, start, stop;
	bool swap;
	uint64_t kinds[K_COUNT];
	struct fxt_slot slots[256];
	uint64_t max_ticks;
	VEC(size_t) strings;	/* offsets of string records to intern */
};

static inline uint64_t
word(const struct fxt_half *hf, size_t off)
{
	uint64_t w;

	__builtin_memcpy(&w, hf->data + off, sizeof w);
	return hf->swap ? __builtin_bswap64(w) : w;
}

/*
 * Where SYNC_RECORDS plausible records that chain from off end (or the end
 * of the file, reached exactly); SIZE_MAX if they do not chain. A walk
 * from a wrong start, e.g. inside a record, mostly stops at something
 * implausible, but may also fall into step with the real records after a
 * few bogus ones: its end, not its start, is the guess.
 */
static size_t
chain_end(const struct fxt_half *hf, size_t off)
{
	unsigned n;

	for (n = 0; n < SYNC_RECORDS && off < hf->size; n++) {
		uint64_t h, words;
		unsigned type;

		if (hf->size - off < 8)
			return SIZE_MAX;
		h = word(hf, off);
		type = h & 15;
		words = type == 15 ? (h >> 4) & 0xffffffffu : (h >> 4) & 0xfff;
		/* Types no writer uses make a guess unlikely. */
		if (words == 0 || words > (hf->size - off) / 8 ||
		    (type >= 10 && type <= 14) ||
		    (type == 4 && ((h >> 16) & 15) > FXT_EV_FLOW_END))
			return SIZE_MAX;
		off += (size_t)words * 8;
	}
	return off;
}

/* The scan of [start, size) as far as it goes without the tables. */
static void *
half_scan(void *arg)
{
	struct fxt_half *hf = arg;
	size_t off = hf->start;

	while (hf->size - off >= 8) {
		uint64_t h = word(hf, off), words, ticks;
		unsigned type = h & 15, et, n;
		struct fxt_slot *sl;

		__builtin_prefetch(hf->data + off + 2048);
		words = type == 15 ? (h >> 4) & 0xffffffffu : (h >> 4) & 0xfff;
		if (words == 0 || words > (hf->size - off) / 8)
			break;
		switch (type) {
		case 2:		/* string: interned by the merge, in order */
			n = (h >> 32) & 0x7fff;
			if (words * 8 - 8 < n)
				goto stop;
			if (((h >> 16) & 0x7fff) == 0)
				hf->kinds[K_STRING_IGNORED]++;
			else {
				VEC_PUSH(&hf->strings, off);
				hf->kinds[K_STRING]++;
			}
			break;
		case 4:		/* as scan_event() and event_record() */
			et = (h >> 16) & 15;
			if (et > FXT_EV_FLOW_END) {
				hf->kinds[K_EV_UNKNOWN]++;
				break;
			}
			if (((h >> 24) & 0xff) == 0)
				goto stop;	/* inline thread: made here */
			hf->kinds[K_EV_INSTANT + et]++;
			if (et == FXT_EV_COUNTER || (et >= FXT_EV_ASYNC_BEGIN &&
			    et <= FXT_EV_ASYNC_END) || words < 2)
				break;
			sl = &hf->slots[(h >> 24) & 0xff];
			ticks = word(hf, off + 8);
			if (ticks > hf->max_ticks)
				hf->max_ticks = ticks;
			sl->nev++;
			if (et == FXT_EV_END && ((h >> 20) & 15) != 0)
				sl->end_args = true;
			if (!sl->used) {
				sl->used = true;
				sl->first = sl->last = ticks;
			} else if (ticks < sl->last)
				sl->back = true;
			else
				sl->last = ticks;
			break;
		case 5: hf->kinds[K_BLOB]++; break;
		case 6: hf->kinds[K_USEROBJ]++; break;
		case 10: case 11: case 12: case 13: case 14:
			hf->kinds[K_UNKNOWN10 + (type - 10)]++;
			break;
		case 15:
			hf->kinds[((h >> 36) & 15) == 0 ? K_LARGE_BLOB :
			    K_LARGE_UNKNOWN]++;
			break;
		default:
			goto stop;
		}
		off += (size_t)words * 8;
	}
stop:
	hf->stop = off;
	return NULL;
}

struct fxt_half *
fxt_half_start(struct fxt *x, size_t *mid)
{
	const struct mapped_file *f = x->ctx->file;
	const char *env = ttv_getenv(TTV_ENV_FXT_PIPE_MIN);
	size_t min = HALF_MIN, off, end;
	struct fxt_half *hf;

	if (env != NULL && *env != '\0')
		min = (size_t)strtoull(env, NULL, 10);
	if (f->size < min || f->size < 64 ||
	    (env == NULL && ttv_cpus() < 2))
		return NULL;
	hf = xcalloc(1, sizeof *hf);
	hf->data = x->data;
	hf->size = f->size;
	hf->swap = x->swap;
	/* Records are 8-aligned from the start of the file. */
	off = f->size / 2 & ~(size_t)7;
	end = f->size - off > SYNC_SPAN ? off + SYNC_SPAN : f->size;
	for (; off < end; off += 8)
		if ((hf->start = chain_end(hf, off)) != SIZE_MAX)
			break;
	if (off >= end || hf->start >= f->size ||
	    pthread_create(&hf->thread, NULL, half_scan, hf) != 0) {
		free(hf);
		return NULL;
	}
	*mid = hf->start;
	return hf;
}

/*
 * Whether the slots resolve exactly: each to its own thread, the times
 * convertible, and times that went backwards in ticks (which with a tick
 * rate other than 1 GHz may be equal in ns) only at 1 GHz.
 */
static bool
resolvable(struct fxt *x, const struct fxt_half *hf)
{
	const struct fxt_provider *cur = x->cur;
	struct fxt_map seen = { 0 };
	uint32_t th, v;
	unsigned s;
	int64_t ns;
	bool ok = true;

	if (cur == NULL)
		return false;
	if (!fxt_ticks_to_ns(cur, hf->max_ticks, &ns))
		return false;
	for (s = 1; s < 256 && ok; s++) {
		if (!hf->slots[s].used || (th = cur->threads[s]) == FXT_NONE)
			continue;
		if (hf->slots[s].back && cur->tps != 1000000000u)
			ok = false;
		else if (fxt_map_get(&seen, th, 0, &v))
			ok = false;
		else
			fxt_map_put(&seen, th, 0, s);
	}
	fxt_map_free(&seen);
	return ok;
}

bool
fxt_half_merge(struct fxt *x, struct fxt_half *hf, bool landed, size_t *off)
{
	const struct fxt_provider *cur;
	struct fxt_provider *p;
	int64_t first, last;
	unsigned s;
	size_t i;
	bool ok;

	pthread_join(hf->thread, NULL);
	ok = landed && resolvable(x, hf);
	if (ok) {
		cur = x->cur;
		for (i = 0; i < K_COUNT; i++)
			x->kinds[i] += hf->kinds[i];
		for (s = 1; s < 256; s++) {
			const struct fxt_slot *sl = &hf->slots[s];
			struct fxt_thread *th;
			if (!sl->used || cur->threads[s] == FXT_NONE)
				continue;
			th = &x->threads.items[cur->threads[s]];
			th->nev += sl->nev;
			th->end_args |= sl->end_args;
			fxt_ticks_to_ns(cur, sl->first, &first);
			fxt_ticks_to_ns(cur, sl->last, &last);
			/* As event by event: an event before the thread's
			 * latest marks it, others move the latest on. */
			if (sl->back || first < th->last_t)
				th->defer = true;
			if (last > th->last_t)
				th->last_t = last;
		}
		/* The string records, as string_record() takes them. */
		p = x->cur;
		for (i = 0; i < hf->strings.len; i++) {
			const unsigned char *r = x->data + hf->strings.items[i];
			uint64_t h = fxt_word(x, r);
			unsigned idx = (h >> 16) & 0x7fff;
			size_t n = (h >> 32) & 0x7fff;
			fxt_pstr_set(p, idx, builder_intern(x->b,
			    (const char *)r + 8, n),
			    (uint64_t)(r + 8 - x->data) << 16 | n);
		}
		*off = hf->stop;
	}
	VEC_FREE(&hf->strings);
	free(hf);
	return ok;
}
