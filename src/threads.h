/*
 * Running a step on several workers, in one place: the first on the
 * calling thread, the others on threads of their own, with the work of a
 * thread that cannot start done here instead (slower, same result). How
 * many workers a step may use comes from ttv_cpus() (env.h).
 */
#ifndef TTV_THREADS_H
#define TTV_THREADS_H

#include <stddef.h>

/* Runs fn(base + i * size) for every i < n and returns when all are
 * done. size 0 gives every worker the same argument. */
void threads_run(void *(*fn)(void *), void *base, size_t size, size_t n);

#endif
