/*
 * Decoded CTF events printed in babeltrace2's text layout (sink.text.pretty
 * with its defaults, UTC), for the tests: the conformance tests compare
 * what ttv decodes (tests/tools/ctf_text_dump) with babeltrace2's own
 * output for the same trace, line for line: times, field names, values,
 * bases, enum labels, strings.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "ctf/stream/ctf_decode.h"
#include "ctf_text.h"

static void
print_escaped(FILE *f, const char *s, size_t len)
{
	fputc('"', f);
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		switch (c) {
		case '\n': fputs("\\n", f); break;
		case '\t': fputs("\\t", f); break;
		case '\r': fputs("\\r", f); break;
		case '\v': fputs("\\v", f); break;
		case '\f': fputs("\\f", f); break;
		case '\a': fputs("\\a", f); break;
		case '\b': fputs("\\b", f); break;
		case '\\': fputs("\\\\", f); break;
		case '"': fputs("\\\"", f); break;
		case '\'': fputs("\\'", f); break;
		case '?': fputs("\\?", f); break;
		default:
			fputc(c, f);
		}
	}
	fputc('"', f);
}

static void
print_int(FILE *f, const struct ctf_type *t, uint64_t v)
{
	uint32_t len = t->size;
	switch (t->base) {
	case 16: {
		uint32_t r = (len + 3) & ~3u;
		if (r < 64)
			v &= ((uint64_t)1 << r) - 1;
		fprintf(f, "0x%" PRIX64, v);
		break;
	}
	case 8: {
		uint32_t r = (len + 2) / 3 * 3;
		if (r < 64)
			v &= ((uint64_t)1 << r) - 1;
		fprintf(f, "0%" PRIo64, v);
		break;
	}
	case 2:
		fputs("0b", f);
		for (uint32_t i = len; i-- > 0;)
			fputc((v >> i) & 1 ? '1' : '0', f);
		break;
	default:
		if (t->is_signed)
			fprintf(f, "%" PRId64, (int64_t)v);
		else
			fprintf(f, "%" PRIu64, v);
	}
}

static uint32_t print_val(FILE *f, const struct ctf_val *vals, uint32_t i);

static void
print_enum(FILE *f, const struct ctf_type *t, uint64_t v)
{
	int n = 0;
	for (size_t i = 0; i < t->nmaps; i++) {
		const struct ctf_enum_map *mp = &t->maps[i];
		bool in = t->is_signed ?
		    (int64_t)v >= mp->lo && (int64_t)v <= mp->hi :
		    v >= (uint64_t)mp->lo && v <= (uint64_t)mp->hi;
		if (in)
			n++;
	}
	fputs("( ", f);
	if (n == 0)
		fputs("<unknown>", f);
	else {
		if (n > 1)
			fputs("{ ", f);
		int k = 0;
		for (size_t i = 0; i < t->nmaps; i++) {
			const struct ctf_enum_map *mp = &t->maps[i];
			bool in = t->is_signed ?
			    (int64_t)v >= mp->lo && (int64_t)v <= mp->hi :
			    v >= (uint64_t)mp->lo && v <= (uint64_t)mp->hi;
			if (!in)
				continue;
			/* a label appears once even if it has several ranges */
			bool seen = false;
			for (size_t j = 0; j < i; j++) {
				const struct ctf_enum_map *pm = &t->maps[j];
				bool pin = t->is_signed ?
				    (int64_t)v >= pm->lo && (int64_t)v <= pm->hi :
				    v >= (uint64_t)pm->lo && v <= (uint64_t)pm->hi;
				if (pin && !strcmp(pm->label, mp->label))
					seen = true;
			}
			if (seen)
				continue;
			if (k++)
				fputs(", ", f);
			print_escaped(f, mp->label, strlen(mp->label));
		}
		if (n > 1)
			fputs(" }", f);
	}
	fputs(" : container = ", f);
	print_int(f, t, v);
	fputs(" )", f);
}

/* Prints the value at i and returns the index after it. */
static uint32_t
print_val(FILE *f, const struct ctf_val *vals, uint32_t i)
{
	const struct ctf_val *v = &vals[i];
	const struct ctf_type *t = v->type;
	if (v->is_text) {
		print_escaped(f, v->str, v->len);
		return i + 1;
	}
	switch (t->kind) {
	case CTF_INT:
		if (t->is_bool)
			fputs(v->v.u ? "true" : "false", f);
		else if (t->size > 64) {
			char buf[CTF_BIGINT_TEXT];
			ctf_bigint_text(t, (const uint8_t *)v->str, buf,
			    sizeof buf);
			fputs(buf, f);
		} else
			print_int(f, t, v->v.u);
		return i + 1;
	case CTF_ENUM:
		print_enum(f, t, v->v.u);
		return i + 1;
	case CTF_FLOAT:
		fprintf(f, "%g", v->v.f);
		return i + 1;
	case CTF_STRING:
		print_escaped(f, v->str, v->len);
		return i + 1;
	case CTF_STRUCT: {
		uint32_t j = i + 1;
		if (j == v->end) {
			fputs("{ }", f);
			return j;
		}
		fputs("{ ", f);
		bool first = true;
		while (j < v->end) {
			if (!first)
				fputs(", ", f);
			first = false;
			fprintf(f, "%s = ", vals[j].field->display);
			j = print_val(f, vals, j);
		}
		fputs(" }", f);
		return v->end;
	}
	case CTF_VARIANT: {
		fputs("{ ", f);
		uint32_t j = i + 1;
		if (j < v->end)
			j = print_val(f, vals, j);
		fputs(" }", f);
		return v->end;
	}
	case CTF_ARRAY:
	case CTF_SEQUENCE: {
		uint32_t j = i + 1;
		if (j == v->end) {
			fputs("[ ]", f);
			return j;
		}
		fputs("[ ", f);
		bool first = true;
		while (j < v->end) {
			if (!first)
				fputs(", ", f);
			first = false;
			fprintf(f, "[%" PRIu32 "] = ", vals[j].index);
			j = print_val(f, vals, j);
		}
		fputs(" ]", f);
		return v->end;
	}
	}
	return i + 1;
}

static bool
hidden_role(const struct ctf_field *fl)
{
	return fl != NULL && fl->role >= ROLE_CONTENT_SIZE &&
	    fl->role <= ROLE_PACKET_SEQ_NUM;
}

/* The packet context without the fields babeltrace2 keeps for itself. */
static bool
print_packet_context(FILE *f, const struct ctf_packet_info *p)
{
	if (p->root < 0)
		return false;
	const struct ctf_val *vals = p->vals;
	const struct ctf_val *root = &vals[p->root];
	bool any = false;
	for (uint32_t j = (uint32_t)p->root + 1; j < root->end;) {
		const struct ctf_val *v = &vals[j];
		if (hidden_role(v->field)) {
			j = v->end > j ? v->end : j + 1;
			continue;
		}
		fputs(any ? ", " : "{ ", f);
		any = true;
		fprintf(f, "%s = ", v->field->display);
		j = print_val(f, vals, j);
	}
	if (any)
		fputs(" }", f);
	return any;
}

void
ctf_text_event(FILE *f, const struct ctf_item *it, struct ctf_text_state *st)
{
	const struct ctf_stream *s = it->s;
	const struct ctf_meta *m = s->trace->m;
	bool sp = false;
	if (it->has_ts) {
		int64_t ns = it->ns;
		int64_t sec = ns / 1000000000, sub = ns % 1000000000;
		if (sub < 0) {
			sub += 1000000000;
			sec--;
		}
		time_t tt = (time_t)sec;
		struct tm tm;
		gmtime_r(&tt, &tm);
		fprintf(f, "[%02d:%02d:%02d.%09lld] ", tm.tm_hour, tm.tm_min,
		    tm.tm_sec, (long long)sub);
		if (st->have_prev) {
			/* in unsigned arithmetic: damaged times may be any
			 * two values, and their difference past int64_t */
			char sign = ns >= st->prev_ns ? '+' : '-';
			uint64_t d = sign == '+' ?
			    (uint64_t)ns - (uint64_t)st->prev_ns :
			    (uint64_t)st->prev_ns - (uint64_t)ns;
			fprintf(f, "(%c%llu.%09llu)", sign,
			    (unsigned long long)(d / 1000000000),
			    (unsigned long long)(d % 1000000000));
		} else
			fputs("(+?.????????" "?)", f);
		st->prev_ns = ns;
		st->have_prev = true;
		sp = true;
	}
	const char *host = ctf_env_str(m, "hostname");
	if (host != NULL) {
		fprintf(f, "%s%s", sp ? " " : "", host);
		const char *pn = ctf_env_str(m, "procname");
		if (pn != NULL)
			fprintf(f, ":%s", pn);
		for (size_t i = 0; i < m->nenv; i++)
			if (!strcmp(m->env[i].key, "vpid") && m->env[i].str == NULL)
				fprintf(f, ":(%lld)", (long long)m->env[i].i);
		sp = true;
	}
	fprintf(f, "%s%s: ", sp ? " " : "", it->ev->name);
	bool any = print_packet_context(f, it->pkt);
	for (int k = 1; k < 4 && !it->is_raw; k++) {
		int r = it->u.v.scope_root[k];
		if (r < 0)
			continue;
		const struct ctf_val *v = &it->u.v.vals[r];
		if (k < 3 && v->end == (uint32_t)r + 1)
			continue;
		if (any)
			fputs(", ", f);
		any = true;
		print_val(f, it->u.v.vals, (uint32_t)r);
	}
	fputc('\n', f);
}
