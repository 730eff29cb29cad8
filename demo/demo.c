/*
 * demo.c - the program behind ttv's demo trace (README quick start).
 *
 * A tiny image pipeline: three worker threads take 16x16 tiles from a
 * shared queue and run each through fill -> blur -> quantize -> quadtree
 * (recursive region split) -> checksum; a few noisy tiles also go through
 * a slow denoise step, so the trace has outliers. quantize() logs its
 * argument, each worker ends with a custom event, and the main thread
 * writes a report once the workers are joined.
 *
 * The program records its own XRay trace in FDR mode when it was built
 * with -fxray-instrument (see make-demo.sh): the runtime is driven from
 * main() through its plain C entry points, which clang's headers only
 * declare for C++.
 */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TILE 16
#define NTILES 18
#define NWORKERS 3

struct tile {
	int id;
	int levels;
	int regions;
	unsigned sum;
	unsigned char px[TILE][TILE];
	unsigned char tmp[TILE][TILE];
};

static struct tile tiles[NTILES];
static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
static int next_tile;

/* ---- the XRay runtime, in FDR (flight data recorder) mode ----------- */

int __xray_log_select_mode(const char *mode);
int __xray_log_init_mode(const char *mode, const char *config);
int __xray_patch(void);
int __xray_unpatch(void);
int __xray_log_finalize(void);
int __xray_log_flushLog(void);

#define NOT_TRACED __attribute__((xray_never_instrument, noinline))

NOT_TRACED static int
trace_start(void)
{
	/* Every call is kept (the default drops calls under 5 us). */
	const char *opts = getenv("DEMO_FDR_OPTIONS");

	if (opts == NULL)
		opts = "buffer_size=65536:buffer_max=32:"
		    "func_duration_threshold_us=0";
	if (__xray_log_select_mode("xray-fdr") != 0 ||
	    __xray_log_init_mode("xray-fdr", opts) != 2 /* initialized */) {
		fprintf(stderr, "demo: cannot start XRay FDR mode\n");
		return -1;
	}
	__xray_patch();
	return 0;
}

NOT_TRACED static void
trace_stop(void)
{
	__xray_unpatch();
	__xray_log_finalize();
	__xray_log_flushLog();
}

/* ---- the pipeline ------------------------------------------------------ */

/* Smooth gradients with flat patches, and some tiles full of noise. */
static void
fill_row(struct tile *t, int y)
{
	unsigned seed = (unsigned)(t->id * TILE + y) * 2654435761U;
	int x, noisy = t->id % 7 == 3;

	for (x = 0; x < TILE; x++) {
		seed = seed * 1103515245U + 12345U;
		if (noisy)
			t->px[y][x] = (unsigned char)(seed >> 16);
		else if ((x / 8 + y / 8 + t->id) % 3 == 0)
			t->px[y][x] = (unsigned char)(t->id * 9);
		else
			t->px[y][x] = (unsigned char)((x + y) * 4 + t->id);
	}
}

static void
blur_row(struct tile *t, int y)
{
	int x, dx, dy, n, s;

	for (x = 0; x < TILE; x++) {
		s = n = 0;
		for (dy = -1; dy <= 1; dy++)
			for (dx = -1; dx <= 1; dx++)
				if (y + dy >= 0 && y + dy < TILE &&
				    x + dx >= 0 && x + dx < TILE) {
					s += t->px[y + dy][x + dx];
					n++;
				}
		t->tmp[y][x] = (unsigned char)(s / n);
	}
}

/* The slow path: a few passes with a pause, like waiting for a device. */
static void
denoise(struct tile *t)
{
	struct timespec pause = { 0, 2000000 };
	int y;

	nanosleep(&pause, NULL);
	for (y = 0; y < TILE; y++)
		blur_row(t, y);
}

[[clang::xray_always_instrument, clang::xray_log_args(1)]] static int
quantize(int levels, struct tile *t)
{
	int x, y, step = 256 / levels, changed = 0;
	unsigned char v;

	for (y = 0; y < TILE; y++)
		for (x = 0; x < TILE; x++) {
			v = (unsigned char)(t->tmp[y][x] / step * step);
			changed += v != t->px[y][x];
			t->px[y][x] = v;
		}
	return changed;
}

static int
is_uniform(const struct tile *t, int x0, int y0, int size)
{
	int x, y;

	for (y = y0; y < y0 + size; y++)
		for (x = x0; x < x0 + size; x++)
			if (t->px[y][x] != t->px[y0][x0])
				return 0;
	return 1;
}

/* Splits a square until its pixels are all equal: recursion whose depth
 * follows the picture. Returns the number of regions. */
static int
quadtree(const struct tile *t, int x, int y, int size)
{
	int h = size / 2;

	if (size <= 2 || is_uniform(t, x, y, size))
		return 1;
	return quadtree(t, x, y, h) + quadtree(t, x + h, y, h) +
	    quadtree(t, x, y + h, h) + quadtree(t, x + h, y + h, h);
}

static unsigned
checksum(const struct tile *t)
{
	unsigned s = 0;
	int x, y;

	for (y = 0; y < TILE; y++)
		for (x = 0; x < TILE; x++)
			s = s * 31 + t->px[y][x];
	return s;
}

static void
process_tile(struct tile *t)
{
	int y;

	for (y = 0; y < TILE; y++)
		fill_row(t, y);
	for (y = 0; y < TILE; y++)
		blur_row(t, y);
	if (t->id % 7 == 3)
		denoise(t);
	t->levels = 4 << (t->id % 3);
	quantize(t->levels, t);
	t->regions = quadtree(t, 0, 0, TILE);
	t->sum = checksum(t);
}

static struct tile *
take_tile(void)
{
	struct tile *t = NULL;

	pthread_mutex_lock(&queue_lock);
	if (next_tile < NTILES)
		t = &tiles[next_tile++];
	pthread_mutex_unlock(&queue_lock);
	return t;
}

static void *
worker(void *arg)
{
	int id = (int)(intptr_t)arg, done = 0, n;
	struct tile *t;
	char msg[64];

	while ((t = take_tile()) != NULL) {
		process_tile(t);
		done++;
	}
	n = snprintf(msg, sizeof msg, "worker %d done: %d tiles", id, done);
	__xray_customevent(msg, (size_t)n);
	return NULL;
}

static void
report_tile(const struct tile *t)
{
	printf("tile %2d: %2d levels, %3d regions, checksum %08x\n",
	    t->id, t->levels, t->regions, t->sum);
}

static int
run_pipeline(void)
{
	pthread_t th[NWORKERS];
	int i;

	for (i = 0; i < NTILES; i++)
		tiles[i].id = i;
	for (i = 0; i < NWORKERS; i++)
		if (pthread_create(&th[i], NULL, worker, (void *)(intptr_t)i) != 0)
			return -1;
	for (i = 0; i < NWORKERS; i++)
		pthread_join(th[i], NULL);
	for (i = 0; i < NTILES; i++)
		report_tile(&tiles[i]);
	return 0;
}

int
main(void)
{
	int traced = trace_start() == 0, rc;

	rc = run_pipeline();
	if (traced)
		trace_stop();
	return rc == 0 ? 0 : 1;
}
