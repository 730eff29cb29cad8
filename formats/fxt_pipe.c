/*
 * The replay worker of the FXT event pass. On a big trace the reading
 * thread decodes records, keeps the tables and makes every shared builder
 * call (names, functions, args, tracks, under the builder lock), and hands
 * the per-track work (the duration stacks of threads whose events are in
 * order, counter samples) to one worker through a ring of batches. The
 * worker replays the batches in order under the builder lock, which the
 * reading thread only needs for what is new (a function, a track, args),
 * so the two run side by side on the common events.
 *
 * A worker that replays everything cannot keep up with a reader that only
 * decodes, so unless the trace has flow events the reading thread keeps
 * about a quarter of the thread events (whole threads) and the counter
 * samples, and replays them itself without the lock: those are per-track
 * calls on tracks the worker never touches, and the tracks array only
 * moves when the reading thread itself makes a track, under the lock.
 *
 * Every track is replayed by one thread at a time and in file order, and
 * the shared calls keep their order, so the model is the one the serial
 * pass builds. TTV_FXT_PIPE_MIN (bytes) lowers the size from which the
 * worker is used, for tests.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fxt_int.h"

#define PIPE_MIN_BYTES (32u << 20)	/* smaller traces: serial */
#define BATCH 8192			/* entries per batch */
#define NBATCH 8			/* batches in the ring: 1 MB */
#define WAKE 4		/* a sleeping worker is woken with this many */
#define HOLD 1024	/* the worker lets the reader in this often */
/* The reading thread's share of the thread events it replays itself (it
 * also decodes every record and adds the counter samples). */
#define READER_SHARE_NUM 1
#define READER_SHARE_DEN 4

/*
 * An entry is 16 bytes, as the ring's stores are what the handover costs:
 * the time, the function (or counter track), and the type with the thread
 * index. An event with args, an end time, a flow id, a counter value or a
 * thread index of 2^27 or more has a second entry with them (EXT).
 */
#define EXT (1u << 31)
#define TYPE_SHIFT 27
#define THREAD_MASK ((1u << TYPE_SHIFT) - 1)

struct pev {
	int64_t t;
	uint32_t f;
	uint32_t tt;		/* EXT | type << TYPE_SHIFT | thread */
};

struct pext {
	int64_t x;
	uint32_t args;
	uint32_t thread;
};

_Static_assert(sizeof(struct pev) == 16 && sizeof(struct pext) == 16,
    "ring entries are 16 bytes");
_Static_assert(FXT_EV_COUNT <= 16, "event types fit 4 bits");

struct fxt_pipe {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t full, freed;
	struct fxt *x;
	struct pev *buf[NBATCH];
	uint32_t len[NBATCH];
	unsigned head;		/* next batch to replay */
	unsigned tail;		/* batch being filled */
	unsigned count;		/* batches handed over, not yet replayed */
	bool done;
	/* Who sleeps: wake-ups cost more than the replay of a small batch,
	 * so the worker is woken once several batches wait for it. */
	bool worker_sleeps, reader_sleeps;
	uint64_t kinds[K_COUNT];
};

static void
replay(struct fxt_pipe *pp, const struct pev *e, uint32_t n)
{
	struct fxt *x = pp->x;
	const struct pev *end = e + n;
	struct pext ext;
	unsigned type, held = 0;
	double v;

	builder_lock(x->b);
	for (; e < end; e++) {
		int64_t t = e->t;
		uint32_t f = e->f;
		type = (e->tt >> TYPE_SHIFT) & 15;
		ext.x = 0;
		ext.args = 0;
		ext.thread = e->tt & THREAD_MASK;
		if (e->tt & EXT) {
			memcpy(&ext, e + 1, sizeof ext);
			e++;
		}
		if (type == FXT_EV_COUNTER) {
			memcpy(&v, &ext.x, sizeof v);
			builder_counter(x->b, f, t, v);
		} else
			fxt_thread_run(x, ext.thread, type, t, ext.x, f,
			    ext.args, pp->kinds);
		if (++held == HOLD) {
			builder_unlock(x->b);
			builder_lock(x->b);
			held = 0;
		}
	}
	builder_unlock(x->b);
}

static void *
worker(void *arg)
{
	struct fxt_pipe *pp = arg;
	unsigned idx;

	for (;;) {
		pthread_mutex_lock(&pp->mu);
		while (pp->count == 0 && !pp->done) {
			pp->worker_sleeps = true;
			pthread_cond_wait(&pp->full, &pp->mu);
			pp->worker_sleeps = false;
		}
		if (pp->count == 0) {
			pthread_mutex_unlock(&pp->mu);
			return NULL;
		}
		idx = pp->head;
		pthread_mutex_unlock(&pp->mu);
		replay(pp, pp->buf[idx], pp->len[idx]);
		pthread_mutex_lock(&pp->mu);
		pp->head = (pp->head + 1) % NBATCH;
		pp->count--;
		if (pp->reader_sleeps)
			pthread_cond_signal(&pp->freed);
		pthread_mutex_unlock(&pp->mu);
	}
}

struct by_size {
	uint64_t nev;
	uint32_t thread;
};

static int
cmp_size(const void *a, const void *b)
{
	const struct by_size *p = a, *q = b;

	if (p->nev != q->nev)
		return p->nev > q->nev ? -1 : 1;
	return p->thread < q->thread ? -1 : 1;
}

/*
 * Gives the reading thread some of the threads to replay itself, with
 * about READER_SHARE of the events of the threads that are in order (by
 * the scan pass's counts, biggest threads first), and the counter samples:
 * the worker alone cannot keep up with a reader that only decodes. Not
 * when the trace has flow events: those are collected in the order the
 * replays reach them, which must be file order.
 */
static void
pipe_split(struct fxt *x)
{
	uint64_t total = 0, mine = 0, budget;
	struct by_size *order;
	uint32_t i, n = (uint32_t)x->threads.len;

	for (i = K_EV_FLOW_BEGIN; i <= K_EV_FLOW_END; i++)
		if (x->kinds[i] != 0)
			return;
	order = xreallocarray(NULL, n ? n : 1, sizeof *order);
	for (i = 0; i < n; i++) {
		order[i].nev = x->threads.items[i].nev;
		order[i].thread = i;
		if (!x->threads.items[i].defer)
			total += order[i].nev;
	}
	budget = total / READER_SHARE_DEN * READER_SHARE_NUM;
	qsort(order, n, sizeof *order, cmp_size);
	for (i = 0; i < n; i++) {
		struct fxt_thread *th = &x->threads.items[order[i].thread];
		if (th->defer || th->nev == 0 || mine + th->nev > budget)
			continue;
		th->direct = true;
		mine += th->nev;
	}
	free(order);
	x->split = true;
}

void
fxt_pipe_start(struct fxt *x)
{
	struct fxt_pipe *pp;
	size_t min = PIPE_MIN_BYTES;
	const char *env = getenv("TTV_FXT_PIPE_MIN");
	unsigned i;

	if (env != NULL && *env != '\0')
		min = (size_t)strtoull(env, NULL, 10);
	if (x->size < min || (env == NULL && sysconf(_SC_NPROCESSORS_ONLN) < 2))
		return;
	pp = xcalloc(1, sizeof *pp);
	pp->x = x;
	for (i = 0; i < NBATCH; i++)
		pp->buf[i] = xreallocarray(NULL, BATCH, sizeof *pp->buf[i]);
	pthread_mutex_init(&pp->mu, NULL);
	pthread_cond_init(&pp->full, NULL);
	pthread_cond_init(&pp->freed, NULL);
	if (pthread_create(&pp->thread, NULL, worker, pp) != 0) {
		/* No thread: the serial pass does the same work. */
		pthread_mutex_destroy(&pp->mu);
		pthread_cond_destroy(&pp->full);
		pthread_cond_destroy(&pp->freed);
		for (i = 0; i < NBATCH; i++)
			free(pp->buf[i]);
		free(pp);
		return;
	}
	x->pipe = pp;
	pipe_split(x);
}

/* Hands the batch being filled to the worker and waits for a free one. */
static void
pipe_flush(struct fxt_pipe *pp)
{
	pthread_mutex_lock(&pp->mu);
	pp->count++;
	pp->tail = (pp->tail + 1) % NBATCH;
	if (pp->worker_sleeps && pp->count >= WAKE)
		pthread_cond_signal(&pp->full);
	while (pp->count == NBATCH) {
		pp->reader_sleeps = true;
		pthread_cond_wait(&pp->freed, &pp->mu);
		pp->reader_sleeps = false;
	}
	pp->len[pp->tail] = 0;
	pthread_mutex_unlock(&pp->mu);
}

void
fxt_pipe_put(struct fxt *x, unsigned type, uint32_t thread, int64_t t,
    int64_t xv, func_id f, args_id a)
{
	struct fxt_pipe *pp = x->pipe;
	struct pev *e = pp->buf[pp->tail] + pp->len[pp->tail];

	e->t = t;
	e->f = f;
	if (xv == 0 && a == 0 && thread <= THREAD_MASK) {
		e->tt = (uint32_t)type << TYPE_SHIFT | thread;
		pp->len[pp->tail]++;
	} else {
		struct pext ext = { xv, a, thread };
		e->tt = EXT | (uint32_t)type << TYPE_SHIFT;
		memcpy(e + 1, &ext, sizeof ext);
		pp->len[pp->tail] += 2;
	}
	/* Room for an event and its second entry. */
	if (pp->len[pp->tail] > BATCH - 2)
		pipe_flush(pp);
}

void
fxt_pipe_finish(struct fxt *x)
{
	struct fxt_pipe *pp = x->pipe;
	unsigned i;

	if (pp == NULL)
		return;
	pthread_mutex_lock(&pp->mu);
	if (pp->len[pp->tail] > 0) {
		pp->count++;
		pp->tail = (pp->tail + 1) % NBATCH;
	}
	pp->done = true;
	pthread_cond_signal(&pp->full);
	pthread_mutex_unlock(&pp->mu);
	pthread_join(pp->thread, NULL);
	for (i = 0; i < K_COUNT; i++)
		x->kinds[i] += pp->kinds[i];
	pthread_mutex_destroy(&pp->mu);
	pthread_cond_destroy(&pp->full);
	pthread_cond_destroy(&pp->freed);
	for (i = 0; i < NBATCH; i++)
		free(pp->buf[i]);
	free(pp);
	x->pipe = NULL;
	x->split = false;
	x->lock_depth = 0;
}
