/* Fan-out workers (see threads.h). */
#include "config.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "threads.h"
#include "xalloc.h"

void
threads_run(void *(*fn)(void *), void *base, size_t size, size_t n)
{
	char *arg = base;

	if (n == 0)
		return;
	pthread_t *tid = xcalloc(n, sizeof *tid);
	bool *started = xcalloc(n, sizeof *started);
	for (size_t i = 1; i < n; i++)
		started[i] = pthread_create(&tid[i], NULL, fn,
		    arg + i * size) == 0;
	fn(arg);
	for (size_t i = 1; i < n; i++) {
		if (started[i])
			pthread_join(tid[i], NULL);
		else
			fn(arg + i * size);
	}
	free(started);
	free(tid);
}
