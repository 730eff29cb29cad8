/*
 * Unit tests of the metadata's look-ups, which must give what a walk over
 * everything would: names (ctf_names.c), struct fields by name, exact or
 * with one underscore more or less (ctf_field_find*), enum labels by
 * value (ctf_enum.c: the first map holding it, maps overlapping or not,
 * signed or not), event and stream classes by id, the 2010 RFC's
 * sections by file name; and the limit on what types expand to.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ctf/types/ctf_meta.h"
#include "ctf/tsdl/tsdl_parse.h"
#include "ctf/types/ctf_names.h"
#include "ctf/rfc2010/ctf_rfc2010.h"

/* A small deterministic generator (xorshift64*). */
static uint64_t rng = 88172645463325252ULL;

static uint64_t
rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 2685821657736338717ULL;
}

static void
test_names(void **state)
{
	(void)state;
	struct ctf_meta *m = ctf_meta_new();
	struct ctf_names ix = { 0 };
	char *keys[3000];
	for (int i = 0; i < 3000; i++) {
		char buf[32];
		snprintf(buf, sizeof buf, "name%d", i);
		keys[i] = ctf_strdup(m, buf, strlen(buf));
		assert_int_equal(ctf_names_put(m, &ix, keys[i], (uint32_t)i,
		    false), -1);
	}
	for (int i = 0; i < 3000; i++)
		assert_int_equal(ctf_names_get(&ix, keys[i], strlen(keys[i])), i);
	/* by length: "name12" is in "name123" */
	assert_int_equal(ctf_names_get(&ix, "name123", 6), 12);
	assert_int_equal(ctf_names_get(&ix, "name", 4), -1);
	assert_int_equal(ctf_names_get(&ix, "", 0), -1);
	/* there already: kept, or replaced */
	assert_int_equal(ctf_names_put(m, &ix, "name7", 99, false), 7);
	assert_int_equal(ctf_names_get(&ix, "name7", 5), 7);
	assert_int_equal(ctf_names_put(m, &ix, "name7", 99, true), 7);
	assert_int_equal(ctf_names_get(&ix, "name7", 5), 99);
	assert_int_equal(ctf_names_get(NULL, "x", 1), -1);
	ctf_meta_free(m);
}

/* What ctf_field_find_loose gives, by a walk. */
static int64_t
loose_walk(const struct ctf_type *st, size_t upto, const char *s, bool last)
{
	int64_t r = -1;
	for (size_t i = 0; i < upto; i++) {
		const char *a = st->fields[i].name;
		bool eq = !strcmp(a, s) || (a[0] == '_' && !strcmp(a + 1, s)) ||
		    (s[0] == '_' && !strcmp(a, s + 1));
		if (eq && (r < 0 || last))
			r = (int64_t)i;
	}
	return r;
}

static void
check_fields(size_t nfields)
{
	static const char *const pool[] = {
		"a", "_a", "__a", "b", "_c", "d", "__e", "_f", "f", "g",
		"h", "_h", "i", "j", "_j", "k", "l", "_m", "n", "o",
	};
	static const char *const probes[] = {
		"a", "_a", "__a", "___a", "b", "_b", "c", "_c", "__c", "e",
		"_e", "__e", "f", "_f", "h", "_h", "m", "_m", "z", "",
	};
	struct ctf_meta *m = ctf_meta_new();
	struct ctf_type *st = ctf_type_new(m, CTF_STRUCT);
	for (size_t i = 0; i < nfields; i++)
		ctf_field_add(m, st, pool[i], NULL);
	assert_int_equal(st->nfields, nfields);
	assert_true((st->names != NULL) == (nfields >= CTF_FIELDS_INDEXED));
	for (size_t i = 0; i < nfields; i++) {
		assert_string_equal(st->fields[i].name, pool[i]);
		assert_int_equal(st->fields[i].slot, -1);
	}
	for (size_t upto = 0; upto <= nfields; upto++)
		for (size_t k = 0; k < sizeof probes / sizeof probes[0]; k++) {
			const char *s = probes[k];
			int64_t exact = -1;
			for (size_t i = 0; i < upto && exact < 0; i++)
				if (!strcmp(st->fields[i].name, s))
					exact = (int64_t)i;
			assert_int_equal(ctf_field_find(st, upto, s, strlen(s)),
			    exact);
			assert_int_equal(ctf_field_find_loose(st, upto, s,
			    strlen(s), true), loose_walk(st, upto, s, true));
			assert_int_equal(ctf_field_find_loose(st, upto, s,
			    strlen(s), false), loose_walk(st, upto, s, false));
		}
	ctf_meta_free(m);
}

static void
test_fields(void **state)
{
	(void)state;
	/* below the index, at it, and well past it */
	check_fields(3);
	check_fields(CTF_FIELDS_INDEXED);
	check_fields(20);
}

/* What ctf_enum_label gives, by a walk over the maps. */
static int
label_walk(const struct ctf_type *t, uint64_t raw)
{
	for (size_t i = 0; i < t->nmaps; i++) {
		const struct ctf_enum_map *mp = &t->maps[i];
		bool in = t->is_signed ?
		    (int64_t)raw >= mp->lo && (int64_t)raw <= mp->hi :
		    raw >= (uint64_t)mp->lo && raw <= (uint64_t)mp->hi;
		if (in)
			return (int)i;
	}
	return -1;
}

/* The header plan's own loop: how far the maps cover 0, 1, ... */
static void
prefix_walk(const struct ctf_type *t, uint64_t *max, bool *any)
{
	*max = 0;
	*any = false;
	for (bool grew = true; grew;) {
		grew = false;
		for (size_t i = 0; i < t->nmaps; i++) {
			uint64_t lo = (uint64_t)t->maps[i].lo;
			uint64_t hi = (uint64_t)t->maps[i].hi;
			uint64_t next = *any ? *max + 1 : 0;
			if (lo <= next && hi >= next && hi != UINT64_MAX) {
				*max = hi;
				*any = grew = true;
			}
		}
	}
}

/* A value near the ones the maps name (or anywhere), as 64 bits. */
static uint64_t
near(const struct ctf_type *t)
{
	const struct ctf_enum_map *mp = &t->maps[rnd() % t->nmaps];
	uint64_t v = (uint64_t)(rnd() & 1 ? mp->lo : mp->hi);
	switch (rnd() % 5) {
	case 0: return v - 1;
	case 1: return v + 1;
	case 2: return rnd();
	default: return v;
	}
}

static void
check_enum(bool is_signed, size_t nmaps, int shape)
{
	struct ctf_meta *m = ctf_meta_new();
	struct ctf_type *t = ctf_type_new(m, CTF_ENUM);
	t->is_signed = is_signed;
	t->size = 64;
	t->maps = ctf_alloc(m, nmaps * sizeof *t->maps);
	t->nmaps = nmaps;
	static const int64_t edges[] = { 0, 1, -1, INT64_MIN, INT64_MAX,
	    INT64_MIN + 1, INT64_MAX - 1 };
	for (size_t i = 0; i < nmaps; i++) {
		int64_t lo, hi;
		switch (shape) {
		case 0:		/* small overlapping ranges, some empty */
			lo = (int64_t)(rnd() % 200) - 60;
			hi = lo + (int64_t)(rnd() % 30) - 3;
			break;
		case 1:		/* one value each, in reverse, from 0 */
			lo = hi = (int64_t)(nmaps - 1 - i);
			break;
		default:	/* the edges of 64 bits */
			lo = edges[rnd() % 7];
			hi = rnd() % 3 ? edges[rnd() % 7] : lo;
			break;
		}
		t->maps[i] = (struct ctf_enum_map){ "l", lo, hi };
	}
	ctf_enum_prepare(m, t);
	assert_non_null(t->enum_index);
	for (int k = 0; k < 20000; k++) {
		uint64_t v = near(t);
		int mi;
		const char *lab = ctf_enum_label(t, v, &mi);
		assert_int_equal(mi, label_walk(t, v));
		assert_true((lab != NULL) == (mi >= 0));
	}
	if (!is_signed) {
		uint64_t max;
		bool any;
		prefix_walk(t, &max, &any);
		assert_true(t->enum_index->prefix_any == any);
		if (any)
			assert_true(t->enum_index->prefix_max == max);
	}
	/* another enum of the same maps shares the index */
	struct ctf_type *c = ctf_type_copy(m, t);
	c->enum_index = NULL;
	ctf_enum_prepare(m, c);
	assert_ptr_equal(c->enum_index, t->enum_index);
	ctf_meta_free(m);
}

static void
test_enum_labels(void **state)
{
	(void)state;
	for (int shape = 0; shape < 3; shape++)
		for (int s = 0; s < 2; s++) {
			check_enum(s, CTF_ENUM_INDEXED, shape);
			check_enum(s, 300, shape);
		}
	/* few maps: no index, the walk */
	struct ctf_meta *m = ctf_meta_new();
	struct ctf_type *t = ctf_type_new(m, CTF_ENUM);
	t->maps = ctf_alloc(m, sizeof *t->maps);
	t->maps[0] = (struct ctf_enum_map){ "x", 3, 5 };
	t->nmaps = 1;
	ctf_enum_prepare(m, t);
	assert_null(t->enum_index);
	assert_string_equal(ctf_enum_label(t, 4, NULL), "x");
	assert_null(ctf_enum_label(t, 6, NULL));
	ctf_meta_free(m);
}

static struct ctf_meta *
tsdl(const char *text, char *err, size_t errsize)
{
	struct ctf_meta *m = ctf_meta_new();
	err[0] = '\0';
	if (tsdl_parse(m, text, strlen(text), err, errsize) < 0 ||
	    ctf_meta_resolve(m, err, errsize) < 0) {
		ctf_meta_free(m);
		return NULL;
	}
	return m;
}

#define HEAD "/* CTF 1.8 */\ntrace { major = 1; minor = 8; " \
    "byte_order = le; packet.header := struct { integer { size = 32; } " \
    "stream_id; }; };\n"

/* Event classes of sparse ids: found through the sorted list, and a
 * duplicate found however far apart. */
static void
test_event_ids(void **state)
{
	(void)state;
	char *text = malloc(1 << 16), err[512];
	size_t n = (size_t)snprintf(text, 1 << 16, "%s"
	    "stream { event.header := struct { integer { size = 64; } id; }; "
	    "};\n", HEAD);
	for (int i = 0; i < 200; i++)
		n += (size_t)snprintf(text + n, (1 << 16) - n, "event { name = "
		    "e%d; id = %llu; };\n", i,
		    (unsigned long long)(200 - i) << 40);
	struct ctf_meta *m = tsdl(text, err, sizeof err);
	if (m == NULL)
		fail_msg("%s", err);
	const struct ctf_stream_class *s = m->streams[0];
	assert_int_equal(s->nby_id, 0);
	assert_non_null(s->sorted);
	for (int i = 0; i < 200; i++) {
		const struct ctf_event_class *e = ctf_event_by_id(s,
		    (uint64_t)(200 - i) << 40);
		assert_non_null(e);
		assert_ptr_equal(e, s->events[i]);
	}
	assert_null(ctf_event_by_id(s, 0));
	assert_null(ctf_event_by_id(s, ((uint64_t)7 << 40) + 1));
	ctf_meta_free(m);
	/* the last event's id is the first's: 200 classes apart */
	snprintf(text + n, (1 << 16) - n, "event { name = last; id = %llu; };\n",
	    (unsigned long long)200 << 40);
	assert_null(tsdl(text, err, sizeof err));
	assert_non_null(strstr(err, "duplicate event id 219902325555200"));
	assert_non_null(strstr(err, "line 204,"));
	free(text);
}

static void
test_stream_ids(void **state)
{
	(void)state;
	char *text = malloc(1 << 16), err[512];
	size_t n = (size_t)snprintf(text, 1 << 16, "%s", HEAD);
	for (int i = 0; i < 50; i++)
		n += (size_t)snprintf(text + n, (1 << 16) - n, "stream { id = "
		    "%d; };\nevent { name = e%d; stream_id = %d; };\n",
		    (i * 37) % 50 * 1000, i, (i * 37) % 50 * 1000);
	struct ctf_meta *m = tsdl(text, err, sizeof err);
	if (m == NULL)
		fail_msg("%s", err);
	assert_non_null(m->streams_by_id);
	for (int i = 0; i < 50; i++)
		assert_ptr_equal(ctf_stream_by_id(m, (uint64_t)i * 1000),
		    m->streams[(size_t)((i * 23) % 50)]);
	assert_null(ctf_stream_by_id(m, 1));
	assert_null(ctf_stream_by_id(m, 50000));
	ctf_meta_free(m);
	/* one declared twice, far apart */
	snprintf(text + n, (1 << 16) - n, "stream { id = 0; };\n");
	assert_null(tsdl(text, err, sizeof err));
	assert_non_null(strstr(err, "duplicate stream class 0"));
	free(text);
}

/* A variant whose options and tag labels differ by underscores: each
 * label's option is the one of its name, else the first with one '_'
 * more or less; 20 of each, so that the options are indexed. */
static void
test_variant_options(void **state)
{
	(void)state;
	char text[8192], err[512];
	size_t n = (size_t)snprintf(text, sizeof text, "%s"
	    "stream { event.header := struct { integer { size = 8; } id; }; "
	    "};\nevent { name = e; fields := struct { enum : integer { size "
	    "= 8; } { ", HEAD);
	for (int i = 0; i < 20; i++)
		n += (size_t)snprintf(text + n, sizeof text - n, "%sl%d, ",
		    i % 3 == 0 ? "_" : "", i);
	n += (size_t)snprintf(text + n, sizeof text - n, "x } tag; variant "
	    "<tag> { ");
	for (int i = 19; i >= 0; i--)
		n += (size_t)snprintf(text + n, sizeof text - n, "integer { "
		    "size = 8; } %sl%d; ", i % 2 == 0 ? "_" : "", i);
	snprintf(text + n, sizeof text - n, "} v; }; };\n");
	struct ctf_meta *m = tsdl(text, err, sizeof err);
	if (m == NULL)
		fail_msg("%s", err);
	const struct ctf_type *v = m->streams[0]->events[0]->fields->fields[1]
	    .type;
	assert_int_equal(v->kind, CTF_VARIANT);
	assert_int_equal(v->nopt_of_map, 21);
	for (int i = 0; i < 20; i++) {
		/* label i names option 19 - i, whatever its underscores
		 * (a `_` on both is the exact name) */
		assert_int_equal(v->opt_of_map[i], 19 - i);
	}
	assert_int_equal(v->opt_of_map[20], -1);	/* x: none */
	ctf_meta_free(m);
}

static void
test_rfc_sections(void **state)
{
	(void)state;
	static const char text[] = "trace { major = 1; minor = 1; }\n"
	    "section { name = a; }\nsection { name = a_1; }\n"
	    "section { name = b_; }\nsection { name = c_2x; }\n";
	struct ctf_meta *m = ctf_meta_new();
	m->byte_order = CTF_BO_LE;
	char err[512];
	if (ctf_rfc_parse(m, text, strlen(text), err, sizeof err) < 0 ||
	    ctf_meta_resolve(m, err, sizeof err) < 0)
		fail_msg("%s", err);
	static const struct { const char *file; int want; } cases[] = {
		{ "a", 0 }, { "dir/a", 0 }, { "a_7", 0 },
		/* both a (with _1) and a_1: the first declared */
		{ "a_1", 0 }, { "a_1_2", 1 }, { "a_1x", -1 }, { "a_", -1 },
		{ "b_", 2 }, { "b__3", 2 }, { "b_3", -1 }, { "c_2x", 3 },
		{ "c_2x_12", 3 }, { "c_2", -1 }, { "", -1 }, { "z", -1 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const struct ctf_stream_class *sc = ctf_rfc_section_of(m,
		    cases[i].file);
		if (cases[i].want < 0)
			assert_null(sc);
		else
			assert_ptr_equal(sc, m->streams[cases[i].want]);
	}
	ctf_meta_free(m);
}

/* Typedefs of structs of the last one: refused once their expansion
 * passes the limit, not built. */
static void
test_expansion_limit(void **state)
{
	(void)state;
	char text[4096], err[512];
	size_t n = (size_t)snprintf(text, sizeof text, "%s"
	    "stream { event.header := struct { integer { size = 8; } id; }; "
	    "};\ntypedef integer { size = 8; } s0;\n", HEAD);
	for (int i = 1; i <= 9; i++) {
		n += (size_t)snprintf(text + n, sizeof text - n,
		    "typedef struct { ");
		for (int k = 0; k < 8; k++)
			n += (size_t)snprintf(text + n, sizeof text - n,
			    "s%d m%d; ", i - 1, k);
		n += (size_t)snprintf(text + n, sizeof text - n, "} s%d;\n", i);
	}
	/* 8^5 fields once expanded: read */
	snprintf(text + n, sizeof text - n, "event { name = e; fields := "
	    "struct { s5 v; }; };\n");
	struct ctf_meta *m = tsdl(text, err, sizeof err);
	if (m == NULL)
		fail_msg("%s", err);
	assert_true(m->arena_bytes < m->arena_limit);
	ctf_meta_free(m);
	/* 8^9: refused, and said so */
	snprintf(text + n, sizeof text - n, "event { name = e; fields := "
	    "struct { s9 v; }; };\n");
	assert_null(tsdl(text, err, sizeof err));
	assert_non_null(strstr(err, "the fields of event `e`: its types "
	    "expand to more than 32 MiB"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_fields),
		cmocka_unit_test(test_enum_labels),
		cmocka_unit_test(test_event_ids),
		cmocka_unit_test(test_stream_ids),
		cmocka_unit_test(test_variant_options),
		cmocka_unit_test(test_rfc_sections),
		cmocka_unit_test(test_expansion_limit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
