/*
 * ctf_model_check TRACE ORACLE [SYSROOT [DEBUG_INFO_ORACLE]]
 *
 * Checks the model ttv builds from a CTF trace (through load_trace(), as
 * every mode does) against babeltrace2's text output for the same trace:
 * - every event that is not a cyg-profile entry/exit must be an instant
 *   at the same wall-clock time, with the same name and the same field
 *   values. Both sides are reduced to "TIME NAME: name=value; ..." lines
 *   with the fields sorted by name (struct members flattened "a.b", array
 *   elements "a[0]", enums by label, the model's "context." prefix
 *   dropped) and the lines compared as sorted lists, since the model keeps
 *   instants per track and babeltrace2 prints one merged stream;
 * - with DEBUG_INFO_ORACLE (babeltrace2's debug-info output), the number
 *   of slices per thread and function name must equal the number of
 *   func_entry events per vtid and debug_info func.
 * Prints the first difference and exits 1, or exits 0.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "load.h"
#include "xalloc.h"

typedef VEC(char *) strvec;
typedef VEC(char) charvec;

static void
cv_puts(charvec *v, const char *s, size_t n)
{
	VEC_RESERVE(v, n + 1);
	memcpy(v->items + v->len, s, n);
	v->len += n;
	v->items[v->len] = '\0';
}

static int
cmp_strp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool
is_cyg(const char *name)
{
	return strncmp(name, "lttng_ust_cyg_profile", 21) == 0 &&
	    (strstr(name, ":func_entry") || strstr(name, ":func_exit"));
}

static void
fmt_time(char *buf, size_t size, int64_t ns)
{
	int64_t sec = ns / 1000000000, sub = ns % 1000000000;
	if (sub < 0) {
		sub += 1000000000;
		sec--;
	}
	time_t tt = (time_t)sec;
	struct tm tm;
	gmtime_r(&tt, &tm);
	snprintf(buf, size, "%02d:%02d:%02d.%09lld", tm.tm_hour, tm.tm_min,
	    tm.tm_sec, (long long)sub);
}

/* "time name: " + the sorted pairs, joined. */
static char *
make_line(const char *time, const char *name, strvec *pairs)
{
	if (pairs->len)
		xqsort(pairs->items, pairs->len, sizeof *pairs->items, cmp_strp);
	charvec out = { 0 };
	cv_puts(&out, time, strlen(time));
	cv_puts(&out, " ", 1);
	cv_puts(&out, name, strlen(name));
	cv_puts(&out, ":", 1);
	for (size_t i = 0; i < pairs->len; i++) {
		cv_puts(&out, " ", 1);
		cv_puts(&out, pairs->items[i], strlen(pairs->items[i]));
		cv_puts(&out, ";", 1);
		free(pairs->items[i]);
	}
	pairs->len = 0;
	return out.items;
}

/* --- the model side --- */

static void
model_lines(const struct trace *t, strvec *out)
{
	strvec pairs = { 0 };
	for (uint32_t k = 0; k < t->ntracks; k++) {
		const struct track *tr = &t->tracks[k];
		for (size_t i = 0; i < tr->ninstants; i++) {
			const struct instant *in = &tr->instants[i];
			const char *name = trace_func_name(t, in->func);
			char time[64] = "-";
			if (t->wall_origin != TTV_NS_MIN)
				fmt_time(time, sizeof time, t->wall_origin + in->t);
			size_t n;
			const struct arg *a = trace_args(t, in->args, &n);
			for (size_t j = 0; j < n; j++) {
				const char *an = trace_str(t, a[j].name);
				if (!strncmp(an, "context.", 8))
					an += 8;
				char *p;
				switch (a[j].type) {
				case ARG_STR:
					p = xasprintf("%s=%s", an,
					    trace_str(t, a[j].v.s));
					break;
				case ARG_I64:
					p = xasprintf("%s=%" PRId64, an, a[j].v.i);
					break;
				case ARG_U64:
					p = xasprintf("%s=%" PRIu64, an, a[j].v.u);
					break;
				case ARG_PTR:
					p = xasprintf("%s=0x%" PRIX64, an, a[j].v.u);
					break;
				case ARG_F64:
					p = xasprintf("%s=%g", an, a[j].v.f);
					break;
				default:
					p = xasprintf("%s=?", an);
				}
				VEC_PUSH(&pairs, p);
			}
			VEC_PUSH(out, make_line(time, name, &pairs));
		}
	}
	VEC_FREE(&pairs);
}

/* --- babeltrace2's text, parsed --- */

struct bt {
	const char *p;
	strvec *pairs;
	char path[2048];
	bool bad;
};

static void bt_value(struct bt *b, size_t plen);

static void
skip_ws(struct bt *b)
{
	while (*b->p == ' ')
		b->p++;
}

static void
bt_leaf(struct bt *b, size_t plen, const char *v, size_t vlen)
{
	char *s = xmalloc(plen + vlen + 2);
	memcpy(s, b->path, plen);
	s[plen] = '=';
	memcpy(s + plen + 1, v, vlen);
	s[plen + 1 + vlen] = '\0';
	VEC_PUSH(b->pairs, s);
}

/* A quoted string, unescaped into buf. */
static size_t
bt_string(struct bt *b, charvec *buf)
{
	buf->len = 0;
	cv_puts(buf, "", 0);
	if (*b->p != '"') {
		b->bad = true;
		return 0;
	}
	b->p++;
	while (*b->p && *b->p != '"') {
		char c = *b->p++;
		if (c == '\\' && *b->p) {
			c = *b->p++;
			switch (c) {
			case 'n': c = '\n'; break;
			case 't': c = '\t'; break;
			case 'r': c = '\r'; break;
			case 'v': c = '\v'; break;
			case 'f': c = '\f'; break;
			case 'a': c = '\a'; break;
			case 'b': c = '\b'; break;
			default: break;
			}
		}
		cv_puts(buf, &c, 1);
	}
	if (*b->p == '"')
		b->p++;
	else
		b->bad = true;
	return buf->len;
}

static void
bt_members(struct bt *b, size_t plen, char close, bool array)
{
	/* after "{ " or "[ ": "name = value, ..." or "[i] = value, ..." */
	skip_ws(b);
	while (*b->p && *b->p != close) {
		const char *s = b->p;
		size_t nlen;
		if (array) {
			const char *e = strchr(s, ']');
			if (e == NULL) {
				b->bad = true;
				return;
			}
			nlen = (size_t)(e - s) + 1;
		} else {
			nlen = 0;
			while (s[nlen] && s[nlen] != ' ')
				nlen++;
		}
		size_t np = plen;
		if (!array && plen)
			b->path[np++] = '.';
		if (np + nlen >= sizeof b->path - 1) {
			b->bad = true;
			return;
		}
		memcpy(b->path + np, s, nlen);
		np += nlen;
		b->p = s + nlen;
		if (strncmp(b->p, " = ", 3) != 0) {
			b->bad = true;
			return;
		}
		b->p += 3;
		bt_value(b, np);
		if (b->bad)
			return;
		if (*b->p == ',')
			b->p++;
		skip_ws(b);
	}
	if (*b->p == close)
		b->p++;
	else
		b->bad = true;
}

static void
bt_value(struct bt *b, size_t plen)
{
	skip_ws(b);
	charvec buf = { 0 };
	if (*b->p == '{') {
		b->p++;
		skip_ws(b);
		/* a struct has "name = ", a variant just its value */
		const char *s = b->p;
		while (*s && *s != ' ' && *s != '"' && *s != '{' && *s != '[' &&
		    *s != '(' && *s != '}')
			s++;
		bool is_struct = *b->p == '}' || (s > b->p &&
		    strncmp(s, " = ", 3) == 0);
		if (is_struct)
			bt_members(b, plen, '}', false);
		else {
			bt_value(b, plen);
			skip_ws(b);
			if (*b->p == '}')
				b->p++;
			else
				b->bad = true;
		}
	} else if (*b->p == '[') {
		b->p++;
		bt_members(b, plen, ']', true);
	} else if (*b->p == '"') {
		size_t n = bt_string(b, &buf);
		bt_leaf(b, plen, buf.items, n);
	} else if (*b->p == '(') {
		/* ( "L" : container = V ), ( { "A", "B" } : ...), ( <unknown> ...) */
		b->p++;
		skip_ws(b);
		if (*b->p == '{') {
			b->p++;
			skip_ws(b);
		}
		if (*b->p == '"') {
			size_t n = bt_string(b, &buf);
			bt_leaf(b, plen, buf.items, n);
			const char *e = strstr(b->p, " )");
			b->p = e ? e + 2 : b->p + strlen(b->p);
		} else {
			const char *c = strstr(b->p, "container = ");
			const char *e = c ? strstr(c, " )") : NULL;
			if (e == NULL) {
				b->bad = true;
				free(buf.items);
				return;
			}
			c += 12;
			bt_leaf(b, plen, c, (size_t)(e - c));
			b->p = e + 2;
		}
	} else {
		const char *s = b->p;
		while (*b->p && *b->p != ',' && *b->p != ' ' && *b->p != '}' &&
		    *b->p != ']')
			b->p++;
		bt_leaf(b, plen, s, (size_t)(b->p - s));
	}
	free(buf.items);
}

static int
oracle_lines(const char *path, strvec *out, size_t *nlines, bool has_host)
{
	FILE *f = fopen(path, "r");
	if (f == NULL) {
		perror(path);
		return -1;
	}
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	strvec pairs = { 0 };
	*nlines = 0;
	while ((n = getline(&line, &cap, f)) > 0) {
		if (line[n - 1] == '\n')
			line[--n] = '\0';
		(*nlines)++;
		char time[64] = "-";
		const char *p = line;
		if (*p == '[') {
			const char *e = strchr(p, ']');
			if (e == NULL || e - p > 40)
				goto bad;
			memcpy(time, p + 1, (size_t)(e - p - 1));
			time[e - p - 1] = '\0';
			p = strchr(e, ')');
			if (p == NULL)
				goto bad;
			p += 2;
		}
		const char *sep = strstr(p, ": {");
		const char *end = sep ? sep : p + strlen(p);
		if (!sep && end - p >= 1 && end[-1] == ' ')
			end -= 2;
		/* "HOST NAME" when the trace has a hostname; names may have
		 * spaces, host names do not */
		const char *nm = p;
		if (has_host) {
			const char *sp = memchr(p, ' ', (size_t)(end - p));
			if (sp != NULL)
				nm = sp + 1;
		}
		char name[512];
		size_t nl = (size_t)(end - nm);
		if (nl >= sizeof name)
			goto bad;
		memcpy(name, nm, nl);
		name[nl] = '\0';
		if (is_cyg(name))
			continue;
		struct bt b = { .p = sep ? sep + 2 : "", .pairs = &pairs };
		while (*b.p == '{' && !b.bad) {
			b.p++;
			bt_members(&b, 0, '}', false);
			if (*b.p == ',')
				b.p += 2;
		}
		if (b.bad || *b.p != '\0')
			goto bad;
		VEC_PUSH(out, make_line(time, name, &pairs));
		continue;
bad:
		fprintf(stderr, "cannot parse oracle line %zu: %s\n", *nlines,
		    line);
		free(line);
		fclose(f);
		return -1;
	}
	free(line);
	VEC_FREE(&pairs);
	fclose(f);
	return 0;
}

/* --- slices per thread and name --- */

static int
check_slices(const struct trace *t, const char *oracle)
{
	FILE *f = fopen(oracle, "r");
	if (f == NULL) {
		perror(oracle);
		return 1;
	}
	strvec want = { 0 }, got = { 0 };
	char *line = NULL;
	size_t cap = 0;
	while (getline(&line, &cap, f) > 0) {
		if (strstr(line, "lttng_ust_cyg_profile:func_entry:") == NULL &&
		    strstr(line, "lttng_ust_cyg_profile_fast:func_entry:") == NULL)
			continue;
		const char *v = strstr(line, "vtid = ");
		const char *fn = strstr(line, "func = \"");
		if (v == NULL || fn == NULL) {
			fprintf(stderr, "no vtid or func in: %s", line);
			return 1;
		}
		fn += 8;
		size_t l = strcspn(fn, "+\"");
		VEC_PUSH(&want, xasprintf("%lld %.*s", atoll(v + 7), (int)l, fn));
	}
	free(line);
	fclose(f);
	for (uint32_t k = 0; k < t->ntracks; k++) {
		const struct track *tr = &t->tracks[k];
		for (uint32_t d = 0; d < tr->ndepth; d++)
			for (size_t i = 0; i < tr->depth[d].len; i++)
				VEC_PUSH(&got, xasprintf("%lld %s",
				    (long long)tr->tid, trace_func_name(t,
				    tr->depth[d].slices[i].func)));
	}
	xqsort(want.items, want.len, sizeof *want.items, cmp_strp);
	xqsort(got.items, got.len, sizeof *got.items, cmp_strp);
	int rc = 0;
	if (want.len != got.len) {
		fprintf(stderr, "slices: %zu in the model, %zu func_entry in the "
		    "oracle\n", got.len, want.len);
		rc = 1;
	}
	for (size_t i = 0; i < want.len && i < got.len && rc == 0; i++)
		if (strcmp(want.items[i], got.items[i]) != 0) {
			fprintf(stderr, "slice %zu: model \"%s\", oracle \"%s\"\n",
			    i, got.items[i], want.items[i]);
			rc = 1;
		}
	if (rc == 0)
		printf("slices: %zu, per thread and name as in the oracle\n",
		    got.len);
	for (size_t i = 0; i < want.len; i++)
		free(want.items[i]);
	for (size_t i = 0; i < got.len; i++)
		free(got.items[i]);
	VEC_FREE(&want);
	VEC_FREE(&got);
	return rc;
}

int
main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: ctf_model_check TRACE ORACLE [SYSROOT "
		    "[DEBUG_INFO_ORACLE]]\n");
		return 2;
	}
	struct load_options opts = { .sysroot = argc > 3 && argv[3][0] ?
	    argv[3] : NULL };
	char *err = NULL;
	struct trace *t = load_trace(argv[1], "ctf", &opts, &err);
	strvec want = { 0 }, got = { 0 };
	size_t nlines;
	bool has_host = false;
	for (size_t i = 0; t != NULL && i < t->nmeta; i++) {
		size_t l = strlen(t->meta_keys[i]);
		if (l >= 12 && !strcmp(t->meta_keys[i] + l - 12, "env.hostname"))
			has_host = true;
	}
	if (oracle_lines(argv[2], &want, &nlines, has_host) < 0)
		return 1;
	if (t == NULL) {
		if (nlines == 0) {
			printf("no events, as in the oracle (%s)\n", err);
			free(err);
			return 0;
		}
		fprintf(stderr, "cannot load: %s\n", err);
		free(err);
		return 1;
	}
	model_lines(t, &got);
	xqsort(want.items, want.len, sizeof *want.items, cmp_strp);
	xqsort(got.items, got.len, sizeof *got.items, cmp_strp);
	int rc = 0;
	for (size_t i = 0; i < want.len || i < got.len; i++) {
		const char *w = i < want.len ? want.items[i] : "(none)";
		const char *g = i < got.len ? got.items[i] : "(none)";
		if (strcmp(w, g) != 0) {
			fprintf(stderr, "instant %zu differs:\n  model:  %.600s\n"
			    "  oracle: %.600s\n", i, g, w);
			rc = 1;
			break;
		}
	}
	if (rc == 0)
		printf("instants: %zu, same times, names and fields as the "
		    "oracle\n", got.len);
	if (rc == 0 && argc > 4)
		rc = check_slices(t, argv[4]);
	for (size_t i = 0; i < want.len; i++)
		free(want.items[i]);
	for (size_t i = 0; i < got.len; i++)
		free(got.items[i]);
	VEC_FREE(&want);
	VEC_FREE(&got);
	trace_free(t);
	return rc;
}
