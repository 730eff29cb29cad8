/*
 * Maps the pages of a big FXT trace in ahead of the scan pass, on the
 * second CPU, which has nothing else to do until the event pass starts.
 *
 * The scan pass reads the mapping once from end to end; most of its time
 * on a trace that is in the page cache goes into page faults, which map
 * the file a few pages at a time. MADV_POPULATE_READ maps whole chunks
 * in one call, and on another thread that time leaves the scan's path: the
 * scan only waits for the mapping where it catches up with the helper. It
 * changes nothing the scan sees, so a kernel without it (or a failure)
 * just means the scan faults the pages in itself.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fxt_int.h"
#include "env.h"

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22	/* Linux 5.14 */
#endif

#define PREFAULT_MIN (32u << 20)	/* smaller traces: not worth a thread */
#define PREFAULT_STEP (4u << 20)	/* per call: the scan follows closely */

struct fxt_prefault {
	pthread_t thread;
	const unsigned char *data;
	size_t size;
	atomic_bool stop;
};

static void *
prefault(void *arg)
{
	struct fxt_prefault *pf = arg;
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	/* madvise() wants a page-aligned start; the mapping is one. */
	uintptr_t p = (uintptr_t)pf->data & ~(page - 1);
	uintptr_t end = (uintptr_t)pf->data + pf->size;

	while (p < end && !atomic_load_explicit(&pf->stop,
	    memory_order_relaxed)) {
		size_t len = end - p < PREFAULT_STEP ? end - p : PREFAULT_STEP;
		if (madvise((void *)p, len, MADV_POPULATE_READ) != 0)
			break;
		p += len;
	}
	return NULL;
}

struct fxt_prefault *
fxt_prefault_start(const unsigned char *data, size_t size)
{
	struct fxt_prefault *pf;

	if (size < PREFAULT_MIN || ttv_cpus() < 2)
		return NULL;
	pf = xcalloc(1, sizeof *pf);
	pf->data = data;
	pf->size = size;
	atomic_init(&pf->stop, false);
	if (pthread_create(&pf->thread, NULL, prefault, pf) != 0) {
		free(pf);
		return NULL;
	}
	return pf;
}

void
fxt_prefault_stop(struct fxt_prefault *pf)
{
	if (pf == NULL)
		return;
	atomic_store(&pf->stop, true);
	pthread_join(pf->thread, NULL);
	free(pf);
}
