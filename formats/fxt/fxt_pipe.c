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
 * the counter samples and small threads (up to READER_SHARE of the thread
 * events), and replays them itself without the lock: those are per-track
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
#include "env.h"

#define PIPE_MIN_BYTES (32u << 20)	/* smaller traces: serial */
#define BATCH 8192			/* entries per batch */
#define NBATCH 16			/* batches in the ring: 2 MB */
/* A sleeping worker is woken once this many batches wait for it, a
 * sleeping reader once this many are free: wake-ups cost more than the
 * replay of a small batch. */
#define WAKE 4
#define HOLD 1024	/* the worker lets the reader in this often */
/* The reading thread's share of the thread events it replays itself (it
 * also decodes every record and adds the counter samples). */
#define READER_SHARE_NUM 1
#define READER_SHARE_DEN 16


struct fxt_pipe {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t full, freed;
	struct fxt *x;
	struct fxt_pev *buf[NBATCH];
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
replay(struct fxt_pipe *pp, const struct fxt_pev *e, uint32_t n)
{
	struct fxt *x = pp->x;
	const struct fxt_pev *end = e + n;

	builder_lock(x->b);
	while ((e = fxt_replay(x, e, end, HOLD, pp->kinds)) < end) {
		builder_unlock(x->b);
		builder_lock(x->b);
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
			/* what it built is read by the loading thread */
			builder_thread_done(pp->x->b);
			return NULL;
		}
		idx = pp->head;
		pthread_mutex_unlock(&pp->mu);
		replay(pp, pp->buf[idx], pp->len[idx]);
		pthread_mutex_lock(&pp->mu);
		pp->head = (pp->head + 1) % NBATCH;
		pp->count--;
		if (pp->reader_sleeps && pp->count <= NBATCH - WAKE)
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
 * Gives the reading thread the counter samples and some threads to replay
 * itself: up to READER_SHARE of the events of the threads that are in
 * order (by the scan pass's counts, biggest threads first). Its decoding
 * costs about what the worker's replay does, so that share is small.
 * TTV_FXT_READER_SHARE (sixteenths) changes it, for tests. Not when the
 * trace has flow events: those are collected in the order the replays
 * reach them, which must be file order.
 */
static void
pipe_split(struct fxt *x)
{
	const char *env = ttv_getenv(TTV_ENV_FXT_READER_SHARE);
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
	if (env != NULL && *env != '\0')
		budget = total / 16 * strtoull(env, NULL, 10);
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

static void
pipe_free(struct fxt_pipe *pp)
{
	pthread_mutex_destroy(&pp->mu);
	pthread_cond_destroy(&pp->full);
	pthread_cond_destroy(&pp->freed);
	for (unsigned i = 0; i < NBATCH; i++)
		free(pp->buf[i]);
	free(pp);
}

bool
fxt_pipe_wanted(size_t size)
{
	size_t min = PIPE_MIN_BYTES;
	const char *env = ttv_getenv(TTV_ENV_FXT_PIPE_MIN);

	if (env != NULL && *env != '\0')
		min = (size_t)strtoull(env, NULL, 10);
	return size >= min && (env != NULL || ttv_cpus() >= 2);
}

void
fxt_pipe_start(struct fxt *x, size_t bytes)
{
	struct fxt_pipe *pp;
	unsigned i;

	if (!fxt_pipe_wanted(bytes))
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
		pipe_free(pp);
		return;
	}
	x->pipe = pp;
	x->put = pp->buf[0];
	x->put_end = pp->buf[0] + BATCH - 1;
	pipe_split(x);
}

/* Hands the batch being filled to the worker (woken if now, else once
 * several batches wait) and waits for a free one. */
void
fxt_pipe_flush(struct fxt *x, bool now)
{
	struct fxt_pipe *pp = x->pipe;

	pthread_mutex_lock(&pp->mu);
	pp->len[pp->tail] = (uint32_t)(x->put - pp->buf[pp->tail]);
	pp->count++;
	pp->tail = (pp->tail + 1) % NBATCH;
	if (pp->worker_sleeps && (now || pp->count >= WAKE))
		pthread_cond_signal(&pp->full);
	if (pp->count == NBATCH) {
		pp->reader_sleeps = true;
		while (pp->count > NBATCH - WAKE)
			pthread_cond_wait(&pp->freed, &pp->mu);
		pp->reader_sleeps = false;
	}
	pthread_mutex_unlock(&pp->mu);
	x->put = pp->buf[pp->tail];
	/* Room for an event and its second entry. */
	x->put_end = x->put + BATCH - 1;
}

void
fxt_pipe_finish(struct fxt *x)
{
	struct fxt_pipe *pp = x->pipe;
	unsigned i;

	if (pp == NULL)
		return;
	pthread_mutex_lock(&pp->mu);
	pp->len[pp->tail] = (uint32_t)(x->put - pp->buf[pp->tail]);
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
	pipe_free(pp);
	x->pipe = NULL;
	x->put = x->put_end = NULL;
	/* the split is this pass's: a read that goes on splits again */
	x->split = false;
	for (size_t t = 0; t < x->threads.len; t++)
		x->threads.items[t].direct = false;
	x->lock_depth = 0;
}
