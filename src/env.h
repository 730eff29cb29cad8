/*
 * Every environment variable ttv reads of its own, in one place. None is
 * needed: they exist for tests and measurements (forcing a code path on a
 * small input, or a thread count), and the man page lists the ones a user
 * may want.
 *
 *   TTV_THREADS            cores to use (default: all online, at least 1)
 *   TTV_ASYNC_SLICES       slices from which the viewer computes panes on
 *                          its worker thread (default 2000000)
 *   TTV_TEST_SENTINEL      the viewer writes a marker after every frame,
 *                          for the screen tests
 *   TTV_CTF_CALLS=walk     CTF: cyg-profile calls go through the merged walk
 *                          instead of being kept apart per stream
 *   TTV_CTF_PIPE_MIN       CTF: bytes from which streams decode on workers
 *   TTV_CTF_BATCH          CTF: items per decoded batch (tests: tiny ones)
 *   TTV_FXT_PIPE_MIN       FXT: bytes from which the scan is split and
 *                          replayed on a second thread
 *   TTV_FXT_READER_SHARE   FXT: sixteenths of the events the reading thread
 *                          replays itself
 *   TTV_FXT_BUILDER_STACKS FXT: the builder's stacks for every thread
 *                          (tests compare with the reader-kept ones)
 *   TTV_TEST_SHRINK        a mapped trace is cut to half its size right
 *                          after mapping (tests of a file that shrinks)
 *   TTV_REGEX_SECONDS      CPU seconds one pattern may work over a trace's
 *                          strings (default 3; tests: less, to reach the
 *                          limit quickly on a busy machine)
 *   TTV_SQL_MEMORY         MiB SQLite may take (0: no limit; default: what
 *                          the memory budget leaves, see sql.h)
 *   TTV_LIVE_TIMEOUT       ms to wait for a live relay's connection or
 *                          reply (default 10000; tests: a stalled relay)
 *   TTV_CACHE_MAX          bytes the indexes of traces may take in the
 *                          cache directory (default 4G; K, M, G suffixes)
 *   TTV_INDEX_CHECK=all    an index's large arrays are checked whole at
 *                          open, never on first touch (index_guard.h)
 *   TTV_INDEX_STORE        a trace an index is built for is built straight
 *                          into it (index_store.h), as when memory is short
 *   TTV_FOLLOW_STATS       --follow --search or --markers says on stderr
 *                          how many rows each round looked at (tests: that
 *                          a round looks at what is new, not at all)
 *   TTV_NO_INDEX           as --no-index unless --index is given (the test
 *                          suite sets it, so that runs do not depend on
 *                          the indexes earlier runs left); the readers'
 *                          knobs above do the same, as an index would
 *                          answer instead of the path they force
 */
#ifndef TTV_ENV_H
#define TTV_ENV_H

#include <stdint.h>

enum ttv_env {
	TTV_ENV_THREADS,
	TTV_ENV_ASYNC_SLICES,
	TTV_ENV_TEST_SENTINEL,
	TTV_ENV_CTF_CALLS,
	TTV_ENV_CTF_PIPE_MIN,
	TTV_ENV_CTF_BATCH,
	TTV_ENV_FXT_PIPE_MIN,
	TTV_ENV_FXT_READER_SHARE,
	TTV_ENV_FXT_BUILDER_STACKS,
	TTV_ENV_TEST_SHRINK,
	TTV_ENV_REGEX_SECONDS,
	TTV_ENV_SQL_MEMORY,
	TTV_ENV_LIVE_TIMEOUT,
	TTV_ENV_CACHE_MAX,
	TTV_ENV_INDEX_CHECK,
	TTV_ENV_NO_INDEX,
	TTV_ENV_INDEX_STORE,
	TTV_ENV_FOLLOW_STATS,
	TTV_ENV_COUNT
};

/* The variable's value, or NULL when it is unset. */
const char *ttv_getenv(enum ttv_env e);
/* Its name ("TTV_THREADS"). */
const char *ttv_env_name(enum ttv_env e);
/* The cores work may be spread over: TTV_THREADS when set to a number of
 * at least 1, else the processors online (at least 1). */
int ttv_cpus(void);
/* A count of MiB in the variable: 1 with *mib set when it is a whole
 * number (at most 2^40), 0 when it is unset or empty, -1 when it holds
 * anything else. */
int ttv_env_mib(enum ttv_env e, uint64_t *mib);

#endif
