/*
 * Resolved field layouts: the types, fields and look-ups the front ends
 * build a trace description with (out of its arena, ctf_arena.c), the
 * clocks' conversion to ns, and the pass that turns what a front end
 * declared into what the decoder needs -- native byte orders made
 * explicit, clocks bound, every root scope deep-copied and its sequence
 * lengths and variant tags resolved to value slots, the fields the reader
 * cares about (packet sizes, timestamps, event ids...) given their roles,
 * event classes indexed by id.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"
#include "ctf_meta.h"
#include "ctf_names.h"

static void
track_type(struct ctf_meta *m, struct ctf_type *t)
{
	if (m->ntypes == m->captypes) {
		m->captypes = m->captypes ? m->captypes * 2 : 256;
		m->types = xreallocarray(m->types, m->captypes, sizeof *m->types);
	}
	m->types[m->ntypes++] = t;
}

struct ctf_type *
ctf_type_new(struct ctf_meta *m, enum ctf_kind kind)
{
	struct ctf_type *t = ctf_alloc(m, sizeof *t);
	t->kind = kind;
	t->clock = -1;
	t->tag_slot = -1;
	t->length_slot = -1;
	t->align = 1;
	t->base = 10;
	track_type(m, t);
	return t;
}

struct ctf_type *
ctf_type_copy(struct ctf_meta *m, const struct ctf_type *t)
{
	struct ctf_type *c = ctf_alloc(m, sizeof *c);
	*c = *t;
	c->origin = t->origin != NULL ? t->origin : t;
	track_type(m, c);
	return c;
}

struct ctf_field *
ctf_field_add(struct ctf_meta *m, struct ctf_type *st, const char *name,
    struct ctf_type *type)
{
	size_t n = st->nfields;
	if (n == 0 || (n >= 2 && (n & (n - 1)) == 0)) {
		/* the array is full: it holds 2, then each power of two */
		struct ctf_field *a = ctf_alloc(m, (n ? 2 * n : 2) * sizeof *a);
		if (n > 0)
			memcpy(a, st->fields, n * sizeof *a);
		st->fields = a;
	}
	struct ctf_field *f = &st->fields[st->nfields++];
	memset(f, 0, sizeof *f);
	f->name = name;
	f->display = name;
	f->type = type;
	f->slot = -1;
	if (st->nfields == CTF_FIELDS_INDEXED) {
		st->names = ctf_alloc(m, sizeof *st->names);
		for (size_t i = 0; i < st->nfields; i++)
			ctf_names_put(m, st->names, st->fields[i].name,
			    (uint32_t)i, false);
	} else if (st->names != NULL)
		ctf_names_put(m, st->names, name, (uint32_t)n, false);
	return f;
}

int64_t
ctf_field_find(const struct ctf_type *st, size_t upto, const char *s,
    size_t len)
{
	if (st->names != NULL) {
		int64_t i = ctf_names_get(st->names, s, len);
		return i >= 0 && (size_t)i < upto ? i : -1;
	}
	for (size_t i = 0; i < upto && i < st->nfields; i++)
		if (strncmp(st->fields[i].name, s, len) == 0 &&
		    st->fields[i].name[len] == '\0')
			return (int64_t)i;
	return -1;
}

int64_t
ctf_field_find_loose(const struct ctf_type *st, size_t upto, const char *s,
    size_t len, bool last)
{
	/* the name itself, with a '_' before, and without its own */
	int64_t c[3] = { ctf_field_find(st, upto, s, len), -1, -1 };
	char buf[256];
	char *u = len + 1 <= sizeof buf ? buf : xmalloc(len + 1);
	u[0] = '_';
	memcpy(u + 1, s, len);
	c[1] = ctf_field_find(st, upto, u, len + 1);
	if (u != buf)
		free(u);
	if (len > 0 && s[0] == '_')
		c[2] = ctf_field_find(st, upto, s + 1, len - 1);
	int64_t r = -1;
	for (int k = 0; k < 3; k++)
		if (c[k] >= 0 && (r < 0 || (last ? c[k] > r : c[k] < r)))
			r = c[k];
	return r;
}

const char *
ctf_env_str(const struct ctf_meta *m, const char *key)
{
	for (size_t i = 0; i < m->nenv; i++)
		if (!strcmp(m->env[i].key, key))
			return m->env[i].str;
	return NULL;
}

struct ctf_stream_class *
ctf_stream_by_id(const struct ctf_meta *m, uint64_t id)
{
	if (m->nstreams == 1 && !m->streams[0]->has_id)
		return m->streams[0];
	if (m->streams_by_id != NULL) {
		/* the first of that id, as the walk below finds it */
		size_t lo = 0, hi = m->nstreams;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (m->streams_by_id[mid]->id < id)
				lo = mid + 1;
			else
				hi = mid;
		}
		return lo < m->nstreams && m->streams_by_id[lo]->id == id ?
		    m->streams_by_id[lo] : NULL;
	}
	for (size_t i = 0; i < m->nstreams; i++)
		if (m->streams[i]->id == id)
			return m->streams[i];
	return NULL;
}

struct ctf_event_class *
ctf_event_by_id(const struct ctf_stream_class *s, uint64_t id)
{
	if (id < s->nby_id)
		return s->by_id[id];
	if (s->nby_id != 0)
		return NULL;
	if (s->sorted != NULL) {
		size_t lo = 0, hi = s->nevents;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (s->sorted[mid]->id < id)
				lo = mid + 1;
			else
				hi = mid;
		}
		return lo < s->nevents && s->sorted[lo]->id == id ?
		    s->sorted[lo] : NULL;
	}
	for (size_t i = 0; i < s->nevents; i++)
		if (s->events[i]->id == id)
			return s->events[i];
	return NULL;
}

static int64_t
clock_clamp(const struct ctf_clock *c, __int128 ns)
{
	if (ns > INT64_MAX || ns < INT64_MIN) {
		if (c->clamps != NULL)
			atomic_fetch_add_explicit(c->clamps, 1,
			    memory_order_relaxed);
		return ns > 0 ? INT64_MAX : INT64_MIN;
	}
	return (int64_t)ns;
}

int64_t
ctf_clock_ns(const struct ctf_clock *c, uint64_t cycles)
{
	/* in 128 bits: a time past int64 ns (damage, or a clock that
	 * does not start near 1970) is clamped and counted, never wrapped
	 * in silence */
	if (c->ns_cycles)
		return clock_clamp(c, (__int128)c->base_ns + cycles);
	/* as babeltrace2 does: offset normalised to whole seconds plus
	 * cycles below one second, each part converted on its own */
	uint64_t f = c->freq ? c->freq : 1000000000;
	__int128 off_s = c->offset_s;
	__int128 off_c = c->offset;
	off_s += off_c / (__int128)f;
	off_c %= (__int128)f;
	if (off_c < 0) {
		off_c += (__int128)f;
		off_s--;
	}
	__int128 base = off_s * 1000000000 +
	    (__int128)((unsigned __int128)off_c * 1000000000u / f);
	__int128 v = (__int128)(cycles / f) * 1000000000 +
	    (__int128)((unsigned __int128)(cycles % f) * 1000000000u / f);
	return clock_clamp(c, base + v);
}

/* --- resolution --- */

/* NULL when nested too deeply or past the arena's limit (the caller
 * tells which with ctf_meta_over). */
static struct ctf_type *
deep_copy(struct ctf_meta *m, const struct ctf_type *t, int depth)
{
	if (depth > 100 || ctf_meta_over(m))
		return NULL;
	switch (t->kind) {
	case CTF_STRUCT:
	case CTF_VARIANT: {
		struct ctf_type *c = ctf_type_copy(m, t);
		c->fields = ctf_alloc(m, (t->nfields ? t->nfields : 1) *
		    sizeof *c->fields);
		for (size_t i = 0; i < t->nfields; i++) {
			c->fields[i] = t->fields[i];
			c->fields[i].slot = -1;
			c->fields[i].role = ROLE_NONE;
			c->fields[i].type = deep_copy(m, t->fields[i].type,
			    depth + 1);
			if (c->fields[i].type == NULL)
				return NULL;
		}
		return c;
	}
	case CTF_ARRAY:
	case CTF_SEQUENCE: {
		struct ctf_type *c = ctf_type_copy(m, t);
		c->elem = deep_copy(m, t->elem, depth + 1);
		return c->elem ? c : NULL;
	}
	default:
		return (struct ctf_type *)t;
	}
}

struct frame {
	struct ctf_type *t;	/* a struct or variant */
	size_t upto;		/* fields before this one are visible */
};

struct rctx {
	struct ctf_meta *m;
	struct ctf_type *roots[SCOPE_COUNT];
	int scope;
	struct frame stack[128];
	int nstack;
	char *err;
	size_t errsize;
	const char *where;
	/* a path of the root being resolved was found outside it (in an
	 * earlier root scope) */
	bool outside;
	/* roots resolved without going outside, by (type declared, scope):
	 * the position of their copy in m->types, for the next use */
	struct hashmap done;
};

static struct ctf_field *
find_field(struct ctf_type *st, size_t upto, const char *name, size_t len)
{
	if (len >= 256)
		return NULL;
	/* exact names first (they are unique in a struct), then the last
	 * with one underscore more or less */
	int64_t i = ctf_field_find(st, upto, name, len);
	if (i < 0)
		i = ctf_field_find_loose(st, upto, name, len, true);
	return i >= 0 ? &st->fields[i] : NULL;
}

/* Follows the rest of a dotted path from a field into nested structs. */
static struct ctf_field *
follow(struct ctf_field *f, const char *rest)
{
	while (f != NULL && *rest == '.') {
		rest++;
		const char *dot = strchr(rest, '.');
		size_t len = dot ? (size_t)(dot - rest) : strlen(rest);
		if (f->type->kind != CTF_STRUCT)
			return NULL;
		f = find_field(f->type, f->type->nfields, rest, len);
		rest += len;
	}
	return f;
}

static const struct {
	const char *prefix;
	int scope;
} abs_prefixes[] = {
	{ "trace.packet.header.", SCOPE_PACKET_HEADER },
	{ "stream.packet.context.", SCOPE_PACKET_CONTEXT },
	{ "stream.event.header.", SCOPE_EVENT_HEADER },
	{ "stream.event.context.", SCOPE_STREAM_EVENT_CONTEXT },
	{ "event.context.", SCOPE_EVENT_CONTEXT },
	{ "event.fields.", SCOPE_EVENT_FIELDS },
};

static const struct ctf_type *
origin_of(const struct ctf_type *t)
{
	return t->origin != NULL ? t->origin : t;
}

/* A relative path where its type was declared (lex): the fields before
 * it in each enclosing struct of the declaration, found among the
 * structs being resolved by what they are copies of. NULL when the
 * declaration's structs are not all there or hold no such field. */
static struct ctf_field *
resolve_lexical(struct rctx *c, const struct ctf_lex *lex, const char *path,
    size_t len)
{
	int below = c->nstack;
	for (const struct ctf_lex *l = lex; l != NULL; l = l->up) {
		int fi = -1;
		for (int i = below - 1; i >= 0; i--)
			if (c->stack[i].t->kind == CTF_STRUCT &&
			    origin_of(c->stack[i].t) == l->st) {
				fi = i;
				break;
			}
		if (fi < 0)
			return NULL;
		struct ctf_type *st = c->stack[fi].t;
		size_t upto = l->upto < st->nfields ? l->upto : st->nfields;
		struct ctf_field *f = find_field(st, upto, path, len);
		if (f != NULL)
			return follow(f, path + len);
		below = fi;
	}
	return NULL;
}

static struct ctf_field *
resolve_path(struct rctx *c, const char *path, const struct ctf_lex *lex)
{
	for (size_t i = 0; i < sizeof abs_prefixes / sizeof abs_prefixes[0];
	    i++) {
		size_t n = strlen(abs_prefixes[i].prefix);
		if (strncmp(path, abs_prefixes[i].prefix, n) != 0)
			continue;
		int sc = abs_prefixes[i].scope;
		if (sc > c->scope || c->roots[sc] == NULL)
			return NULL;
		if (sc != c->scope)
			c->outside = true;
		struct ctf_type *root = c->roots[sc];
		const char *rest = path + n;
		const char *dot = strchr(rest, '.');
		size_t len = dot ? (size_t)(dot - rest) : strlen(rest);
		size_t upto = root->nfields;
		if (sc == c->scope && c->nstack > 0 && c->stack[0].t == root)
			upto = c->stack[0].upto;
		return follow(find_field(root, upto, rest, len), rest + len);
	}
	const char *dot = strchr(path, '.');
	size_t len = dot ? (size_t)(dot - path) : strlen(path);
	if (lex != NULL) {
		struct ctf_field *f = resolve_lexical(c, lex, path, len);
		if (f != NULL)
			return f;
	}
	/* then where it is used: the same place unless a typedef or a
	 * named struct brought it here */
	for (int i = c->nstack - 1; i >= 0; i--) {
		if (c->stack[i].t->kind != CTF_STRUCT)
			continue;
		struct ctf_field *f = find_field(c->stack[i].t,
		    c->stack[i].upto, path, len);
		if (f != NULL)
			return follow(f, path + len);
	}
	/* as babeltrace2 does: then the earlier root scopes */
	for (int sc = c->scope - 1; sc >= 0; sc--) {
		if (c->roots[sc] == NULL)
			continue;
		struct ctf_field *f = find_field(c->roots[sc],
		    c->roots[sc]->nfields, path, len);
		if (f != NULL) {
			c->outside = true;
			return follow(f, path + len);
		}
	}
	return NULL;
}

static int rerr(struct rctx *c, int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int
rerr(struct rctx *c, int line, int col, const char *fmt, ...)
{
	int n = 0;
	if (c->m->major == 2 && line > 0)
		/* CTF 2: the offset of the fragment (ctf_type.line) */
		n = snprintf(c->err, c->errsize, "offset %d: ", line - 1);
	else if (line > 0 && col > 0)
		n = snprintf(c->err, c->errsize, "line %d, column %d: ", line,
		    col);
	else if (line > 0)
		n = snprintf(c->err, c->errsize, "line %d: ", line);
	if (n < 0 || (size_t)n >= c->errsize)
		n = 0;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(c->err + n, c->errsize - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

/* A CTF 2 field location (ctf_meta.h), followed as CTF2-SPEC-2.0 says:
 * member by member from a root scope or from the struct holding the
 * field being resolved, into the elements of arrays on the way; only
 * fields before the one being resolved are there, but a struct being
 * resolved may be gone through. Not through variants: NULL. */
static struct ctf_field *
resolve_loc(struct rctx *c, const struct ctf_loc *l)
{
	struct ctf_type *st;
	if (l->scope >= 0) {
		if (l->scope > c->scope || c->roots[l->scope] == NULL)
			return NULL;
		if (l->scope != c->scope)
			c->outside = true;
		st = c->roots[l->scope];
	} else {
		int k = c->nstack - 1, up = l->up;
		for (;; k--) {
			if (k < 0)
				return NULL;
			if (c->stack[k].t->kind == CTF_STRUCT && up-- == 0)
				break;
		}
		st = c->stack[k].t;
	}
	struct ctf_field *f = NULL;
	for (size_t i = 0; i < l->nnames; i++) {
		if (f != NULL) {
			struct ctf_type *t = f->type;
			while (t->kind == CTF_ARRAY || t->kind == CTF_SEQUENCE)
				t = t->elem;
			if (t->kind != CTF_STRUCT)
				return NULL;
			st = t;
		}
		bool last = i + 1 == l->nnames;
		size_t upto = st->nfields;
		for (int k = 0; k < c->nstack; k++)
			if (c->stack[k].t == st) {
				upto = c->stack[k].upto + (last ? 0 : 1);
				break;
			}
		int64_t j = ctf_field_find(st, upto, l->names[i],
		    strlen(l->names[i]));
		if (j < 0)
			return NULL;
		f = &st->fields[j];
	}
	return f;
}

/* A CTF 2 variant or optional selects by ranges of its own (ctf_meta.h):
 * its tag type is the selector's layout with those ranges as maps, so
 * the decoder and the event header plan look options up as for TSDL's
 * enum tags. An optional on a boolean selector is there when it is not
 * zero. */
static int
select_own(struct rctx *c, struct ctf_type *t)
{
	const char *what = t->optional ? "an optional" : "a variant";
	struct ctf_field *f = resolve_loc(c, t->loc);
	if (f == NULL)
		return rerr(c, t->line, t->col, "cannot find the selector `%s` "
		    "of %s in %s (or it is inside a variant: not supported)",
		    t->tag, what, c->where);
	const struct ctf_type *ft = f->type;
	if ((ft->kind != CTF_INT && ft->kind != CTF_ENUM) ||
	    (ft->is_bool && !t->optional))
		return rerr(c, t->line, t->col, "the selector `%s` of %s is "
		    "not an integer%s", t->tag, what,
		    t->optional ? " or a boolean" : "");
	if (ft->is_bool) {
		if (t->nmaps != 0)
			return rerr(c, t->line, t->col, "the selector `%s` of "
			    "an optional is a boolean but it has ranges", t->tag);
		struct ctf_enum_map *mp = ctf_alloc(c->m, sizeof *mp);
		mp->label = t->fields[0].name;
		mp->lo = 1;
		mp->hi = -1;	/* UINT64_MAX: compared unsigned */
		int *om = ctf_alloc(c->m, sizeof *om);
		t->maps = mp;
		t->nmaps = 1;
		t->opt_of_map = om;
		t->nopt_of_map = 1;
	} else if (t->nmaps == 0)
		return rerr(c, t->line, t->col, "the selector `%s` of %s is an "
		    "integer but it has no selector-field-ranges", t->tag, what);
	if (f->slot < 0)
		f->slot = c->m->nslots++;
	t->tag_slot = f->slot;
	struct ctf_type *tt = ctf_type_copy(c->m, ft);
	tt->kind = CTF_ENUM;
	tt->maps = t->maps;
	tt->nmaps = t->nmaps;
	tt->role = ROLE_NONE;
	t->tag_type = tt;
	return 0;
}

static int
resolve_type(struct rctx *c, struct ctf_type *t)
{
	switch (t->kind) {
	case CTF_STRUCT:
	case CTF_VARIANT:
		if (t->kind == CTF_VARIANT && t->loc != NULL) {
			if (select_own(c, t) < 0)
				return -1;
		} else if (t->kind == CTF_VARIANT) {
			if (t->tag == NULL)
				return rerr(c, t->line, t->col, "variant without a tag "
				    "in %s", c->where);
			struct ctf_field *f = resolve_path(c, t->tag, t->lex);
			if (f == NULL)
				return rerr(c, t->line, t->col, "cannot find the tag "
				    "`%s` of a variant in %s", t->tag, c->where);
			if (f->type->kind != CTF_ENUM)
				return rerr(c, t->line, t->col, "the tag `%s` of a "
				    "variant is not an enum", t->tag);
			if (f->slot < 0)
				f->slot = c->m->nslots++;
			t->tag_slot = f->slot;
			t->tag_type = f->type;
			t->nopt_of_map = f->type->nmaps;
			t->opt_of_map = ctf_alloc(c->m, (t->nopt_of_map + 1) *
			    sizeof *t->opt_of_map);
			bool any = false;
			for (size_t i = 0; i < f->type->nmaps; i++) {
				/* the option of that name, else the first with
				 * one underscore more or less */
				const char *lab = f->type->maps[i].label;
				size_t len = strlen(lab);
				int64_t o = ctf_field_find(t, t->nfields, lab, len);
				if (o < 0)
					o = ctf_field_find_loose(t, t->nfields, lab,
					    len, false);
				t->opt_of_map[i] = (int)o;
			}
			for (size_t i = 0; i < f->type->nmaps; i++)
				if (t->opt_of_map[i] >= 0)
					any = true;
			/* some labels may have no option and some options no
			 * label, but a variant none of whose options can
			 * ever be chosen is a mistake */
			if (!any)
				return rerr(c, t->line, t->col, "no label of the "
				    "tag `%s` names an option of the variant",
				    t->tag);
		}
		if (c->nstack == (int)(sizeof c->stack / sizeof c->stack[0]))
			return rerr(c, t->line, t->col, "types nested too deeply");
		c->stack[c->nstack].t = t;
		c->stack[c->nstack].upto = 0;
		c->nstack++;
		for (size_t i = 0; i < t->nfields; i++) {
			c->stack[c->nstack - 1].upto = i;
			if (resolve_type(c, t->fields[i].type) < 0)
				return -1;
		}
		c->nstack--;
		if (t->kind == CTF_STRUCT) {
			uint32_t al = t->align;
			bool flat = true;
			for (size_t i = 0; i < t->nfields; i++) {
				const struct ctf_type *ft = t->fields[i].type;
				if (ft->align > al)
					al = ft->align;
				if ((ft->kind != CTF_INT && ft->kind != CTF_ENUM &&
				    ft->kind != CTF_FLOAT) || ft->varlen ||
				    ft->size > 64 || ft->unit_size != 0)
					flat = false;
			}
			t->align = al;
			t->flat = flat;
			if (flat && t->nfields > 0) {
				t->ops = ctf_alloc(c->m, t->nfields * sizeof *t->ops);
				for (size_t i = 0; i < t->nfields; i++) {
					const struct ctf_field *f = &t->fields[i];
					const struct ctf_type *ft = f->type;
					t->ops[i] = (struct ctf_flat_op){ f, ft,
					    ft->size, ft->align,
					    ft->byte_order == CTF_BO_BE,
					    ft->is_signed, ft->kind == CTF_FLOAT,
					    false, 0 };
				}
			}
		}
		return 0;
	case CTF_SEQUENCE: {
		struct ctf_field *f = t->loc != NULL ? resolve_loc(c, t->loc) :
		    resolve_path(c, t->length_path, t->lex);
		if (f == NULL)
			return rerr(c, t->line, t->col, "cannot find the length `%s` of "
			    "a sequence in %s", t->length_path, c->where);
		if ((f->type->kind != CTF_INT && f->type->kind != CTF_ENUM) ||
		    f->type->is_signed || f->type->is_bool ||
		    f->type->size > 64)
			return rerr(c, t->line, t->col, "the length `%s` of a sequence "
			    "is not an unsigned integer", t->length_path);
		if (f->slot < 0)
			f->slot = c->m->nslots++;
		t->length_slot = f->slot;
	}
		/* fall through */
	case CTF_ARRAY:
		if (resolve_type(c, t->elem) < 0)
			return -1;
		/* CTF 2 arrays may ask for more than their elements */
		if (t->elem->align > t->align)
			t->align = t->elem->align;
		return 0;
	default:
		return 0;
	}
}

static const struct {
	const char *name;
	int scope;
	enum ctf_role role;
} role_names[] = {
	{ "magic", SCOPE_PACKET_HEADER, ROLE_MAGIC },
	{ "uuid", SCOPE_PACKET_HEADER, ROLE_UUID },
	{ "stream_id", SCOPE_PACKET_HEADER, ROLE_STREAM_ID },
	{ "stream_instance_id", SCOPE_PACKET_HEADER, ROLE_STREAM_INSTANCE_ID },
	{ "content_size", SCOPE_PACKET_CONTEXT, ROLE_CONTENT_SIZE },
	{ "packet_size", SCOPE_PACKET_CONTEXT, ROLE_PACKET_SIZE },
	{ "timestamp_begin", SCOPE_PACKET_CONTEXT, ROLE_TS_BEGIN },
	{ "timestamp_end", SCOPE_PACKET_CONTEXT, ROLE_TS_END },
	{ "events_discarded", SCOPE_PACKET_CONTEXT, ROLE_EVENTS_DISCARDED },
	{ "packet_seq_num", SCOPE_PACKET_CONTEXT, ROLE_PACKET_SEQ_NUM },
};

/* The only clock, bound to a timestamp field that does not name one; as
 * babeltrace2 does, a trace without clocks gets a 1 GHz one for it. */
static void
bind_default_clock(struct ctf_meta *m, struct ctf_field *f)
{
	if (f->type->clock >= 0 || f->type->kind != CTF_INT)
		return;
	if (m->nclocks == 0) {
		m->clocks = ctf_alloc(m, sizeof *m->clocks);
		m->clocks[0].name = "default";
		m->clocks[0].freq = 1000000000;
		m->clocks[0].ns_cycles = true;
		m->nclocks = 1;
	}
	if (m->nclocks == 1) {
		f->type = ctf_type_copy(m, f->type);
		f->type->clock = 0;
	}
}

static void
assign_header_roles(struct ctf_meta *m, struct ctf_type *t, int depth)
{
	if (depth > 16)
		return;
	for (size_t i = 0; i < t->nfields; i++) {
		struct ctf_field *f = &t->fields[i];
		struct ctf_type *ft = f->type;
		if ((ft->kind == CTF_INT || ft->kind == CTF_ENUM) &&
		    ft->size <= 64 && !strcmp(f->name, "id"))
			f->role = ROLE_EVENT_ID;
		else if (ft->kind == CTF_INT && ft->size <= 64 &&
		    !strcmp(f->name, "timestamp")) {
			f->role = ROLE_TIMESTAMP;
			bind_default_clock(m, f);
		} else if (ft->kind == CTF_STRUCT || ft->kind == CTF_VARIANT)
			assign_header_roles(m, ft, depth + 1);
	}
}

/* CTF 2: each field has the role its field class declares (the front
 * end gave it for the scope), wherever it is in the scope. */
static void
assign_declared_roles(struct ctf_meta *m, struct ctf_type *t, int depth)
{
	if (depth > 100)
		return;
	for (size_t i = 0; i < t->nfields; i++) {
		struct ctf_field *f = &t->fields[i];
		struct ctf_type *ft = f->type;
		f->role = ft->role;
		if (f->role == ROLE_TIMESTAMP || f->role == ROLE_TS_BEGIN ||
		    f->role == ROLE_TS_END)
			bind_default_clock(m, f);
		if (ft->kind == CTF_STRUCT || ft->kind == CTF_VARIANT)
			assign_declared_roles(m, ft, depth + 1);
	}
}

static void
assign_roles(struct ctf_meta *m, struct ctf_type *t, int scope)
{
	if (t == NULL)
		return;
	if (m->major == 2) {
		assign_declared_roles(m, t, 0);
		return;
	}
	if (scope == SCOPE_EVENT_HEADER) {
		assign_header_roles(m, t, 0);
		return;
	}
	for (size_t i = 0; i < t->nfields; i++) {
		struct ctf_field *f = &t->fields[i];
		for (size_t r = 0; r < sizeof role_names / sizeof role_names[0];
		    r++) {
			if (role_names[r].scope != scope ||
			    strcmp(f->name, role_names[r].name) != 0)
				continue;
			enum ctf_role role = role_names[r].role;
			if (role == ROLE_UUID) {
				if (f->type->kind == CTF_ARRAY &&
				    f->type->length == 16 &&
				    f->type->elem->kind == CTF_INT &&
				    f->type->elem->size == 8)
					f->role = role;
			} else if (f->type->kind == CTF_INT &&
			    !f->type->is_signed && f->type->size <= 64)
				f->role = role;
			if (f->role == ROLE_TS_BEGIN || f->role == ROLE_TS_END)
				bind_default_clock(m, f);
		}
	}
}

static int
clock_of(const struct ctf_type *t, int depth)
{
	if (t == NULL || depth > 16)
		return -1;
	for (size_t i = 0; i < t->nfields; i++) {
		const struct ctf_type *ft = t->fields[i].type;
		if ((ft->kind == CTF_INT || ft->kind == CTF_ENUM) &&
		    ft->clock >= 0)
			return ft->clock;
		if (ft->kind == CTF_STRUCT || ft->kind == CTF_VARIANT) {
			int r = clock_of(ft, depth + 1);
			if (r >= 0)
				return r;
		}
	}
	return -1;
}

/* A fixed-length unsigned integer with this role (given by its name in
 * TSDL, declared in CTF 2). */
static bool
is_int_field(const struct ctf_field *f, enum ctf_role role)
{
	return f->type->kind == CTF_INT && f->role == role &&
	    !f->type->is_signed && !f->type->varlen && f->type->size <= 64;
}

/* Recognises LTTng's event header shapes (see ctf_header_plan). */
static struct ctf_header_plan *
header_plan(struct ctf_meta *m, const struct ctf_type *h)
{
	if (h == NULL || h->kind != CTF_STRUCT || h->nfields != 2)
		return NULL;
	const struct ctf_field *idf = &h->fields[0], *vf = &h->fields[1];
	const struct ctf_type *v = vf->type;
	/* the tag: the id's enum (TSDL), or the variant's own ranges on
	 * the id's layout (CTF 2, where the id may be a plain integer) */
	if ((idf->type->kind != CTF_ENUM && idf->type->kind != CTF_INT) ||
	    idf->type->is_signed || idf->type->varlen ||
	    idf->role != ROLE_EVENT_ID || v->kind != CTF_VARIANT ||
	    idf->slot < 0 || v->tag_slot != idf->slot || v->optional ||
	    v->nfields != 2 || idf->type->clock >= 0)
		return NULL;
	const struct ctf_type *tag = v->tag_type;
	struct ctf_header_plan hp = { .header = h, .id = tag,
	    .id_field = idf };
	bool have_ext = false;
	for (size_t i = 0; i < v->nopt_of_map; i++) {
		int o = v->opt_of_map[i];
		if (o < 0)
			return NULL;
		const struct ctf_type *ot = v->fields[o].type;
		if (ot->kind != CTF_STRUCT)
			return NULL;
		if (ot->nfields == 1 &&
		    is_int_field(&ot->fields[0], ROLE_TIMESTAMP)) {
			if (hp.compact != NULL && hp.compact != ot)
				return NULL;
			hp.compact = ot;
			hp.c_ts = &ot->fields[0];
		} else if (ot->nfields == 2 &&
		    is_int_field(&ot->fields[0], ROLE_EVENT_ID) &&
		    is_int_field(&ot->fields[1], ROLE_TIMESTAMP)) {
			const struct ctf_enum_map *mp = &tag->maps[i];
			if (have_ext || mp->lo != mp->hi)
				return NULL;
			have_ext = true;
			hp.ext_id = (uint64_t)mp->lo;
			hp.extended = ot;
			hp.e_id = &ot->fields[0];
			hp.e_ts = &ot->fields[1];
		} else
			return NULL;
	}
	if (!have_ext || hp.compact == NULL)
		return NULL;
	/* the largest n with 0..n all labelled, to skip the label search:
	 * found by the enum's index when it has one (this loop takes the
	 * square of its maps) */
	hp.compact_max = 0;
	bool grew = true;
	bool any = false;
	ctf_enum_prepare(m, (struct ctf_type *)tag);
	if (tag->enum_index != NULL) {
		grew = false;
		any = tag->enum_index->prefix_any;
		hp.compact_max = tag->enum_index->prefix_max;
	}
	while (grew) {
		grew = false;
		for (size_t i = 0; i < tag->nmaps; i++) {
			const struct ctf_enum_map *mp = &tag->maps[i];
			uint64_t lo = (uint64_t)mp->lo, hi = (uint64_t)mp->hi;
			uint64_t next = any ? hp.compact_max + 1 : 0;
			if (lo <= next && hi >= next && hi != UINT64_MAX) {
				hp.compact_max = hi;
				any = grew = true;
			}
		}
	}
	if (!any)
		hp.compact_max = UINT64_MAX;	/* none: always search */
	const struct ctf_type *it = tag, *tt = hp.c_ts->type;
	hp.c_clock = tt->clock >= 0;
	if (h->align == 8 && it->byte_order == tt->byte_order &&
	    it->align <= 8 && any) {
		hp.fast_be = it->byte_order == CTF_BO_BE;
		if (it->size + tt->size == 32 && hp.compact->align == 1 &&
		    tt->align == 1)
			hp.fast = HP_PACKED32;
		else if (it->size == 16 && tt->size == 32 &&
		    hp.compact->align <= 16 && tt->align <= 16)
			hp.fast = HP_LARGE;
	}
	struct ctf_header_plan *p = ctf_alloc(m, sizeof *p);
	*p = hp;
	return p;
}

static int
resolve_root(struct rctx *c, struct ctf_type **slot, int scope,
    const char *where)
{
	c->scope = scope;
	c->where = where;
	c->nstack = 0;
	if (*slot == NULL) {
		c->roots[scope] = NULL;
		return 0;
	}
	/* A root whose paths all stay inside it resolves the same wherever
	 * it is used in that scope: the stream classes of the 2010 RFC
	 * layout share their headers, TSDL's events their typedef'd
	 * structs. One copy serves them all, instead of one each. */
	const struct ctf_type *declared = *slot;
	uint32_t pos;
	if (hashmap_get(&c->done, (uint64_t)(uintptr_t)declared,
	    (uint64_t)scope, &pos)) {
		*slot = c->roots[scope] = c->m->types[pos];
		return 0;
	}
	size_t at = c->m->ntypes;
	struct ctf_type *t = deep_copy(c->m, *slot, 0);
	if (t == NULL && ctf_meta_over(c->m)) {
		char msg[200];
		return rerr(c, (*slot)->line, (*slot)->col, "%s: %s", where,
		    ctf_meta_over_msg(c->m, msg, sizeof msg));
	}
	if (t == NULL)
		return rerr(c, (*slot)->line, (*slot)->col, "types nested too deeply");
	*slot = t;
	c->roots[scope] = t;
	assign_roles(c->m, t, scope);
	c->outside = false;
	if (resolve_type(c, t) < 0)
		return -1;
	if (!c->outside && at < c->m->ntypes && c->m->types[at] == t &&
	    at < UINT32_MAX)
		hashmap_put(&c->done, (uint64_t)(uintptr_t)declared,
		    (uint64_t)scope, (uint32_t)at);
	return 0;
}

/* Slots are given to fields when later paths refer to them: the flat
 * ops learn which fields need more than a read once all is resolved. */
static void
finish_ops(struct ctf_type *t, int depth)
{
	if (t == NULL || depth > 100)
		return;
	switch (t->kind) {
	case CTF_STRUCT:
	case CTF_VARIANT:
		t->fixed = t->ops != NULL && t->align == 8;
		t->fixed_bits = 0;
		for (size_t i = 0; i < t->nfields; i++) {
			if (t->ops != NULL) {
				struct ctf_flat_op *op = &t->ops[i];
				const struct ctf_field *f = &t->fields[i];
				op->special = f->slot >= 0 ||
				    f->role != ROLE_NONE || f->type->clock >= 0;
				op->t = f->type;
				op->is_signed = f->type->is_signed;
				op->off = t->fixed_bits / 8;
				t->fixed_bits += op->size;
				if (op->special || op->is_float || op->align > 8 ||
				    (op->size != 8 && op->size != 16 &&
				    op->size != 32 && op->size != 64))
					t->fixed = false;
			}
			finish_ops(t->fields[i].type, depth + 1);
		}
		break;
	case CTF_ARRAY:
	case CTF_SEQUENCE:
		finish_ops(t->elem, depth + 1);
		break;
	default:
		break;
	}
}

/* A class with its id and place, sorted by id then place: of classes
 * of one id, a look-up by id takes the first declared, as a walk over
 * them would. */
struct by_id {
	uint64_t id;
	size_t at;
	void *cls;
};

static int
by_id_cmp(const void *a, const void *b)
{
	const struct by_id *x = a, *y = b;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->at < y->at ? -1 : x->at > y->at;
}

/* Event classes by id: a table when the ids are small and dense enough
 * for its size to follow the number of classes, else a list sorted by
 * id; either way every duplicate id is found. */
static int
index_events(struct rctx *c, struct ctf_stream_class *s, uint64_t maxid)
{
	struct ctf_meta *m = c->m;
	if (s->nevents == 0)
		return 0;
	if (maxid < (1u << 20) && maxid < 16 * (uint64_t)s->nevents + 16) {
		s->nby_id = maxid + 1;
		s->by_id = ctf_alloc(m, s->nby_id * sizeof *s->by_id);
		for (size_t ei = 0; ei < s->nevents; ei++) {
			struct ctf_event_class *e = s->events[ei];
			if (s->by_id[e->id] != NULL)
				return rerr(c, e->line, e->col, "duplicate event id "
				    "%llu", (unsigned long long)e->id);
			s->by_id[e->id] = e;
		}
		return 0;
	}
	struct by_id *v = xcalloc(s->nevents, sizeof *v);
	for (size_t i = 0; i < s->nevents; i++)
		v[i] = (struct by_id){ s->events[i]->id, i, s->events[i] };
	xqsort(v, s->nevents, sizeof *v, by_id_cmp);
	s->sorted = ctf_alloc(m, s->nevents * sizeof *s->sorted);
	for (size_t i = 0; i < s->nevents; i++) {
		s->sorted[i] = v[i].cls;
		if (i > 0 && v[i].id == v[i - 1].id) {
			const struct ctf_event_class *e = s->events[
			    v[i].at > v[i - 1].at ? v[i].at : v[i - 1].at];
			free(v);
			return rerr(c, e->line, e->col, "duplicate event id %llu",
			    (unsigned long long)e->id);
		}
	}
	free(v);
	return 0;
}

/* Stream classes by id, for the packets' stream ids. */
static void
index_streams(struct ctf_meta *m)
{
	if (m->nstreams < 8)
		return;
	struct by_id *v = xcalloc(m->nstreams, sizeof *v);
	for (size_t i = 0; i < m->nstreams; i++)
		v[i] = (struct by_id){ m->streams[i]->id, i, m->streams[i] };
	xqsort(v, m->nstreams, sizeof *v, by_id_cmp);
	m->streams_by_id = ctf_alloc(m, m->nstreams * sizeof *m->streams_by_id);
	for (size_t i = 0; i < m->nstreams; i++)
		m->streams_by_id[i] = v[i].cls;
	free(v);
}

static void
finish_root(struct hashmap *finished, struct ctf_type *t)
{
	uint32_t v;
	if (t == NULL || hashmap_get(finished, (uint64_t)(uintptr_t)t, 0, &v))
		return;
	hashmap_put(finished, (uint64_t)(uintptr_t)t, 0, 1);
	finish_ops(t, 0);
}

static int
resolve_meta(struct rctx *c)
{
	struct ctf_meta *m = c->m;
	if (!m->has_major)
		return rerr(c, 0, 0, "metadata without a trace block");
	if (m->byte_order == CTF_BO_NATIVE)
		m->byte_order = CTF_BO_LE;
	/* clocks by name: the last of a name, as a walk over them all
	 * would find it */
	struct ctf_names clocks = { 0 };
	for (size_t k = 0; k < m->nclocks; k++)
		if (m->clocks[k].name != NULL)
			ctf_names_put(m, &clocks, m->clocks[k].name, (uint32_t)k,
			    true);
	for (size_t i = 0; i < m->ntypes; i++) {
		struct ctf_type *t = m->types[i];
		if (t->byte_order == CTF_BO_NATIVE)
			t->byte_order = m->byte_order;
		if (t->clock_name != NULL && t->clock < 0) {
			t->clock = (int)ctf_names_get(&clocks, t->clock_name,
			    strlen(t->clock_name));
			if (t->clock < 0)
				return rerr(c, t->line, t->col, "unknown clock `%s`",
				    t->clock_name);
		}
		if (t->kind == CTF_FLOAT && t->size != 32 && t->size != 64)
			return rerr(c, t->line, t->col, "unsupported float size");
	}
	for (size_t i = 0; i < m->nclocks; i++) {
		struct ctf_clock *ck = &m->clocks[i];
		ck->ns_cycles = false;
		/* An offset that puts times out of int64 ns (a clock that
		 * does not count from near 1970): times count from the
		 * clock's own origin, so that they keep their spacing. */
		uint64_t f = ck->freq ? ck->freq : 1000000000;
		__int128 off = (__int128)ck->offset_s * 1000000000 +
		    (__int128)ck->offset * 1000000000 / (__int128)f;
		if (off > ((__int128)1 << 62) || off < -((__int128)1 << 62)) {
			ctf_meta_warn(m, "clock `%s`: its offset of %lld s and "
			    "%lld cycles is out of the 64-bit ns range (1678 to "
			    "2262): times count from the clock's origin",
			    ck->name ? ck->name : "", (long long)ck->offset_s,
			    (long long)ck->offset);
			ck->offset_s = 0;
			ck->offset = 0;
		}
		ck->clamps = &m->clock_clamps;
		ck->base_ns = ctf_clock_ns(ck, 0);
		ck->ns_cycles = ck->freq == 1000000000;
	}
	if (m->nstreams == 0) {
		struct ctf_stream_class *s = ctf_alloc(m, sizeof *s);
		s->clock = -1;
		m->streams = ctf_alloc(m, sizeof *m->streams);
		m->streams[0] = s;
		m->nstreams = 1;
	}
	if (resolve_root(c, &m->packet_header, SCOPE_PACKET_HEADER,
	    "the packet header") < 0)
		return -1;
	struct ctf_type *ph = c->roots[SCOPE_PACKET_HEADER];
	for (size_t si = 0; si < m->nstreams; si++) {
		struct ctf_stream_class *s = m->streams[si];
		c->roots[SCOPE_PACKET_HEADER] = ph;
		if (s->line == 0 && s->has_id && s->nevents > 0)
			return rerr(c, s->events[0]->line, s->events[0]->col, "event `%s` refers "
			    "to stream class %llu, which is not declared",
			    s->events[0]->name, (unsigned long long)s->id);
		if (resolve_root(c, &s->packet_context, SCOPE_PACKET_CONTEXT,
		    "the packet context") < 0 ||
		    resolve_root(c, &s->event_header, SCOPE_EVENT_HEADER,
		    "the event header") < 0 ||
		    resolve_root(c, &s->event_context,
		    SCOPE_STREAM_EVENT_CONTEXT, "the stream event context") < 0)
			return -1;
		struct ctf_type *pc = c->roots[SCOPE_PACKET_CONTEXT];
		struct ctf_type *eh = c->roots[SCOPE_EVENT_HEADER];
		struct ctf_type *sec = c->roots[SCOPE_STREAM_EVENT_CONTEXT];
		s->hplan = header_plan(m, s->event_header);
		s->clock = clock_of(s->event_header, 0);
		if (s->clock < 0)
			s->clock = clock_of(s->packet_context, 0);
		uint64_t maxid = 0;
		for (size_t ei = 0; ei < s->nevents; ei++) {
			struct ctf_event_class *e = s->events[ei];
			char where[300];
			c->roots[SCOPE_PACKET_CONTEXT] = pc;
			c->roots[SCOPE_EVENT_HEADER] = eh;
			c->roots[SCOPE_STREAM_EVENT_CONTEXT] = sec;
			snprintf(where, sizeof where, "the context of event `%s`",
			    e->name);
			if (resolve_root(c, &e->context, SCOPE_EVENT_CONTEXT,
			    where) < 0)
				return -1;
			snprintf(where, sizeof where, "the fields of event `%s`",
			    e->name);
			if (resolve_root(c, &e->fields, SCOPE_EVENT_FIELDS,
			    where) < 0)
				return -1;
			if (!e->has_id) {
				if (s->nevents > 1)
					return rerr(c, e->line, e->col, "event `%s` "
					    "without an id", e->name);
				e->id = 0;
			}
			if (e->id > maxid)
				maxid = e->id;
		}
		if (index_events(c, s, maxid) < 0)
			return -1;
		if (ctf_meta_over(m)) {
			char msg[200];
			return rerr(c, s->line, 0, "%s",
			    ctf_meta_over_msg(m, msg, sizeof msg));
		}
	}
	/* once every path has its slot: each root once, however many
	 * stream or event classes share it */
	struct hashmap finished = { 0 };
	finish_root(&finished, m->packet_header);
	for (size_t si = 0; si < m->nstreams; si++) {
		struct ctf_stream_class *s = m->streams[si];
		finish_root(&finished, s->packet_context);
		finish_root(&finished, s->event_header);
		finish_root(&finished, s->event_context);
		for (size_t ei = 0; ei < s->nevents; ei++) {
			finish_root(&finished, s->events[ei]->context);
			finish_root(&finished, s->events[ei]->fields);
		}
	}
	hashmap_free(&finished);
	index_streams(m);
	/* decoding looks up the label of every enum value and variant tag */
	for (size_t i = 0; i < m->ntypes; i++)
		if (m->types[i]->kind == CTF_ENUM)
			ctf_enum_prepare(m, m->types[i]);
	return 0;
}

int
ctf_meta_resolve(struct ctf_meta *m, char *err, size_t errsize)
{
	struct rctx c = { .m = m, .err = err, .errsize = errsize };
	int rc = resolve_meta(&c);
	hashmap_free(&c.done);
	return rc;
}
