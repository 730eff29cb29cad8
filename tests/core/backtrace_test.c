/*
 * The backtrace of a call (query_call_path, src/query_window.c), which
 * the viewer's backtrace pane and the details pane's path line show: on
 * random nested traces, every frame holds the next one, depth after
 * depth down to the call, and the chain is what SQL's ancestor_slice(id)
 * lists (the batch road to it: `ttv --query`), outermost first, then the
 * call itself.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "builder.h"
#include "query.h"
#include "sql.h"
#include "sql_int.h"

static uint64_t rng_state = 0x2545F4914F6CDD1DULL;

static uint64_t
rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* ntracks threads of random nesting up to maxdepth; some calls have
 * zero length, some are left open at the end (unterminated). */
static struct trace *
random_trace(uint32_t ntracks, int events, int maxdepth)
{
	struct builder *b = builder_new("backtrace-test");
	builder_set_format(b, "test", "1", NULL);
	func_id f[6];
	for (unsigned i = 0; i < 6; i++) {
		char name[16];
		snprintf(name, sizeof name, "fn%u", i);
		f[i] = builder_func(b, builder_intern_cstr(b, name), 0, i);
	}
	uint32_t proc = builder_process(b, 7);
	for (uint32_t k = 0; k < ntracks; k++) {
		uint32_t tr = builder_track(b, TRACK_THREAD, proc, 100 + k);
		ttv_ns now = 1000;
		int open = 0;
		for (int e = 0; e < events; e++) {
			now += (ttv_ns)(rng() % 3);	/* 0: zero length */
			if (open < maxdepth && (open == 0 || rng() % 2)) {
				builder_push(b, tr, now, f[rng() % 6]);
				open++;
			} else {
				builder_pop(b, tr, now, 0);
				open--;
			}
		}
		builder_track_touch(b, tr, now + 10);
	}
	return builder_finish(b);
}

static void
check_chain(const struct trace *t, struct sql *s, struct slice_ref r)
{
	struct slice_ref *path = NULL;
	size_t n = query_call_path(t, r, &path);

	/* the call, under every caller down from depth 0 */
	assert_int_equal(n, r.depth + 1);
	assert_memory_equal(&path[n - 1], &r, sizeof r);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(path[i].track, r.track);
		assert_int_equal(path[i].depth, i);
		if (i == 0)
			continue;
		const struct slice *in = trace_slice(t, path[i]);
		const struct slice *out = trace_slice(t, path[i - 1]);
		assert_true(out->start <= in->start);
		assert_true(trace_slice_end(t, path[i]) <=
		    trace_slice_end(t, path[i - 1]));
	}

	/* ancestor_slice(id): the same frames, outermost first */
	char sqlq[96];
	sqlite3_stmt *st;
	snprintf(sqlq, sizeof sqlq, "SELECT id FROM ancestor_slice(%lld)",
	    (long long)sql_ref_id(s, r));
	assert_int_equal(sqlite3_prepare_v2(sql_db(s), sqlq, -1, &st, NULL),
	    SQLITE_OK);
	size_t k = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		assert_true(k + 1 < n);
		assert_int_equal(sqlite3_column_int64(st, 0),
		    sql_ref_id(s, path[k]));
		k++;
	}
	sqlite3_finalize(st);
	assert_int_equal(k, n - 1);
	free(path);
}

static void
test_chain_is_ancestor_slice(void **state)
{
	(void)state;
	for (int round = 0; round < 4; round++) {
		struct trace *t = random_trace(3, 400, 2 + round * 5);
		char *err = NULL;
		struct sql *s = sql_open(t, NULL, &err);
		assert_non_null(s);
		size_t checked = 0;
		for (uint32_t tr = 0; tr < t->ntracks; tr++)
			for (uint32_t d = 0; d < t->tracks[tr].ndepth; d++)
				for (uint32_t i = 0;
				    i < t->tracks[tr].depth[d].len; i++) {
					check_chain(t, s, (struct slice_ref){
					    tr, d, i });
					checked++;
				}
		assert_true(checked > 100);
		sql_close(s);
		trace_free(t);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_chain_is_ancestor_slice),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
