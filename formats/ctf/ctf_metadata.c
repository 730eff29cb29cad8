/*
 * A trace's metadata file: what it looks like (ctf_metadata_probe), its
 * text, plain or in packets of text behind 37-byte headers, and the
 * resolved description read from it by the front end it is written for
 * -- the 2010 RFC's own packets (rfc2010/), else CTF 2's JSON fragments
 * (ctf2/) or CTF 1.8's TSDL (tsdl/) -- with what its packets say checked
 * against what the text says (byte order, uuid).
 */
#include "config.h"

#include <stdarg.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mapfile.h"
#include "xalloc.h"
#include "ctf_metadata.h"
#include "ctf2/ctf2_json.h"
#include "rfc2010/ctf_rfc2010.h"
#include "tsdl/tsdl_parse.h"

#define TSDL_MAGIC 0x75D11D57u
#define META_HEADER 37

static uint32_t
rd32(const unsigned char *p, bool be)
{
	return be ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	    (uint32_t)p[2] << 8 | p[3] :
	    (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 |
	    (uint32_t)p[1] << 8 | p[0];
}

bool
ctf_metadata_probe(const unsigned char *head, size_t len)
{
	if (len >= 4 && (rd32(head, false) == TSDL_MAGIC ||
	    rd32(head, true) == TSDL_MAGIC))
		return true;
	if (ctf2_is_json((const char *)head, len))
		return true;
	if (ctf_rfc_probe(head, len))
		return true;
	return len >= 6 && memcmp(head, "/* CTF", 6) == 0;
}

bool
ctf_metadata_be(const unsigned char *data, size_t size)
{
	return size >= 4 && rd32(data, false) != TSDL_MAGIC &&
	    rd32(data, true) == TSDL_MAGIC;
}

int
ctf_metadata_text(const unsigned char *data, size_t size, char **text,
    size_t *len, uint8_t uuid[16], bool *packetized, char *err,
    size_t errsize, uint64_t *erroff)
{
	*text = NULL;
	*len = 0;
	*packetized = false;
	*erroff = 0;
	if (size < 4 || (rd32(data, false) != TSDL_MAGIC &&
	    rd32(data, true) != TSDL_MAGIC)) {
		*text = xmalloc(size + 1);
		if (size)
			memcpy(*text, data, size);
		(*text)[size] = '\0';
		*len = size;
		return 0;
	}
	*packetized = true;
	bool be = rd32(data, true) == TSDL_MAGIC;
	size_t cap = size, n = 0;
	char *out = xmalloc(cap + 1);
	uint64_t off = 0;
	while (off < size) {
		const unsigned char *p = data + off;
		*erroff = off;
		if (size - off < META_HEADER) {
			snprintf(err, errsize, "truncated metadata packet header");
			goto bad;
		}
		if (rd32(p, be) != TSDL_MAGIC) {
			snprintf(err, errsize, "invalid metadata packet magic "
			    "0x%08x", rd32(p, be));
			goto bad;
		}
		if (off == 0)
			memcpy(uuid, p + 4, 16);
		else if (memcmp(uuid, p + 4, 16) != 0) {
			snprintf(err, errsize, "metadata packet with another "
			    "trace's uuid");
			goto bad;
		}
		uint32_t content = rd32(p + 24, be), psize = rd32(p + 28, be);
		if (p[32] != 0 || p[33] != 0 || p[34] != 0) {
			snprintf(err, errsize, "unsupported metadata packet "
			    "compression, encryption or checksum scheme "
			    "(%u, %u, %u)", p[32], p[33], p[34]);
			goto bad;
		}
		/* 2.0: CTF 2 metadata in the same packets */
		if ((p[35] != 1 || p[36] != 8) && (p[35] != 2 || p[36] != 0)) {
			snprintf(err, errsize, "invalid metadata packet version "
			    "%u.%u (expecting 1.8 or 2.0)", p[35], p[36]);
			goto bad;
		}
		if (psize % 8 != 0 || content % 8 != 0 ||
		    content < META_HEADER * 8 || content > psize) {
			snprintf(err, errsize, "invalid metadata packet sizes "
			    "(content %u bits, packet %u bits)", content, psize);
			goto bad;
		}
		if (psize / 8 > size - off) {
			snprintf(err, errsize, "metadata packet of %u bytes past "
			    "the end of the file", psize / 8);
			goto bad;
		}
		size_t tl = content / 8 - META_HEADER;
		memcpy(out + n, p + META_HEADER, tl);
		n += tl;
		off += psize / 8;
	}
	out[n] = '\0';
	*text = out;
	*len = n;
	return 0;
bad:
	free(out);
	return -1;
}

static void say(ctf_diag_fn diag, void *arg, bool error, const char *file,
    int64_t off, const char *fmt, ...) __attribute__((format(printf, 6, 7)));

static void
say(ctf_diag_fn diag, void *arg, bool error, const char *file, int64_t off,
    const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (diag != NULL)
		diag(arg, error, file, off, buf);
}

/* The 2010 RFC's metadata packets of description strings. */
static struct ctf_meta *
load_rfc(const struct mapped_file *mf, const char *mpath, ctf_diag_fn diag,
    void *arg)
{
	char msg[512];
	int64_t off;
	struct ctf_meta *m = ctf_rfc_metadata(mf->data, mf->size, msg,
	    sizeof msg, &off);
	if (m == NULL) {
		say(diag, arg, true, mpath, off, "%s", msg);
		return NULL;
	}
	for (size_t i = 0; i < m->nwarns; i++)
		say(diag, arg, false, mpath, -1, "%s", m->warns[i]);
	return m;
}

/* CTF 1.8's TSDL or CTF 2's JSON fragments, plain or in packets. */
static struct ctf_meta *
load_ctf(const struct mapped_file *mf, const char *mpath, ctf_diag_fn diag,
    void *arg)
{
	char *text;
	size_t len;
	uint8_t uuid[16];
	bool packetized;
	char msg[512];
	uint64_t off;
	if (ctf_metadata_text(mf->data, mf->size, &text, &len, uuid,
	    &packetized, msg, sizeof msg, &off) < 0) {
		say(diag, arg, true, mpath, (int64_t)off, "%s", msg);
		return NULL;
	}
	bool meta_be = packetized && ctf_metadata_be(mf->data, mf->size);
	bool ctf2 = ctf2_is_json(text, len);
	if (!packetized && !ctf2) {
		if (len < 10 || memcmp(text, "/* CTF 1.8", 10) != 0) {
			if (len >= 6 && memcmp(text, "/* CTF", 6) == 0) {
				say(diag, arg, true, mpath, 0, "unsupported "
				    "metadata version signature (expecting "
				    "\"/* CTF 1.8\")");
				free(text);
				return NULL;
			}
			say(diag, arg, false, mpath, 0, "metadata without the "
			    "\"/* CTF 1.8\" signature");
		}
	}
	struct ctf_meta *m = ctf_meta_new();
	uint64_t moff = 0;
	if (ctf2 && ctf2_parse(m, text, len, msg, sizeof msg, &moff) < 0) {
		/* an offset in the file, or in the text of its packets */
		if (packetized)
			say(diag, arg, true, mpath, -1, "offset %llu of the "
			    "metadata text: %s", (unsigned long long)moff, msg);
		else
			say(diag, arg, true, mpath, (int64_t)moff, "%s", msg);
		ctf_meta_free(m);
		free(text);
		return NULL;
	}
	int prc = ctf2 ? 0 : tsdl_parse(m, text, len, msg, sizeof msg);
	/* the packets' byte order is the trace's, said twice */
	if (!ctf2 && prc == 0 && packetized && m->bo_line > 0 &&
	    (m->byte_order == CTF_BO_BE) != meta_be) {
		snprintf(msg, sizeof msg, "line %d, column %d: the trace's byte "
		    "order is %s, its metadata packets are %s", m->bo_line,
		    m->bo_col, meta_be ? "little-endian" : "big-endian",
		    meta_be ? "big-endian" : "little-endian");
		prc = -1;
	} else if (!ctf2 && prc == 0 && packetized && m->bo_line == 0)
		m->byte_order = meta_be ? CTF_BO_BE : CTF_BO_LE;
	if (prc < 0 || ctf_meta_resolve(m, msg, sizeof msg) < 0) {
		say(diag, arg, true, mpath, -1, "%s", msg);
		ctf_meta_free(m);
		free(text);
		return NULL;
	}
	free(text);
	for (size_t i = 0; i < m->nwarns; i++)
		say(diag, arg, false, mpath, -1, "%s", m->warns[i]);
	if (packetized && m->has_uuid && memcmp(uuid, m->uuid, 16) != 0)
		say(diag, arg, false, mpath, 0, "metadata packets' uuid differs "
		    "from the trace's");
	return m;
}

/* Whether the word before data[i] (spaces skipped) is "trace". */
static bool
after_trace(const unsigned char *data, size_t i)
{
	while (i > 0 && (data[i - 1] == ' ' || data[i - 1] == '\t' ||
	    data[i - 1] == '\n' || data[i - 1] == '\r'))
		i--;
	return i >= 5 && memcmp(data + i - 5, "trace", 5) == 0 &&
	    (i == 5 || !(isalnum(data[i - 6]) || data[i - 6] == '_'));
}

/* Plain TSDL being written: up to the end of its last whole top-level
 * declaration (a ';' outside braces, strings and comments), once the
 * trace block is whole (before it, there is no trace yet: 0). */
static size_t
whole_declarations(const unsigned char *data, size_t size)
{
	size_t end = 0;
	int depth = 0;
	bool in_trace = false, trace_done = false;
	for (size_t i = 0; i < size; i++) {
		unsigned char c = data[i];
		if (c == '"') {
			for (i++; i < size && data[i] != '"'; i++)
				if (data[i] == '\\')
					i++;
		} else if (c == '/' && i + 1 < size && data[i + 1] == '*') {
			for (i += 2; i + 1 < size && !(data[i] == '*' &&
			    data[i + 1] == '/'); i++)
				;
			i++;
		} else if (c == '/' && i + 1 < size && data[i + 1] == '/') {
			while (i < size && data[i] != '\n')
				i++;
		} else if (c == '{') {
			if (depth == 0 && after_trace(data, i))
				in_trace = true;
			depth++;
		} else if (c == '}' && depth > 0) {
			depth--;
		} else if (c == ';' && depth == 0) {
			end = i + 1;
			trace_done |= in_trace;
			in_trace = false;
		}
	}
	return trace_done ? end : 0;
}

/* Metadata being written: packetized, the bytes of its whole packets (a
 * tracer writes a packet at a time, a reader beside it may see part of
 * the last one); plain TSDL, its whole declarations. CTF 2's fragments
 * are taken as they are. */
static size_t
whole_packets(const unsigned char *data, size_t size)
{
	if (size > 0 && data[0] == 0x1e)
		return size;
	if (size < 4 || (rd32(data, false) != TSDL_MAGIC &&
	    rd32(data, true) != TSDL_MAGIC))
		return whole_declarations(data, size);
	bool be = rd32(data, true) == TSDL_MAGIC;
	size_t off = 0;
	while (size - off >= META_HEADER && rd32(data + off, be) == TSDL_MAGIC) {
		uint32_t psize = rd32(data + off + 28, be) / 8;
		if (psize < META_HEADER)
			return size;	/* damage: the reader says so */
		if (psize > size - off)
			break;
		off += psize;
	}
	return size - off >= META_HEADER && rd32(data + off, be) !=
	    TSDL_MAGIC ? size : off;
}

struct ctf_meta *
ctf_metadata_load(const char *full, const char *mpath, bool growing,
    ctf_diag_fn diag, void *arg)
{
	return ctf_metadata_load_first(full, mpath, growing, SIZE_MAX, diag,
	    arg);
}

struct ctf_meta *
ctf_metadata_load_first(const char *full, const char *mpath, bool growing,
    size_t size, ctf_diag_fn diag, void *arg)
{
	struct mapped_file mf;
	char *err = NULL;
	if (mapfile_open(full, &mf, &err) < 0) {
		say(diag, arg, true, mpath, -1, "%s", err ? err : "cannot open");
		free(err);
		return NULL;
	}
	/* the mapping stays whole: it is unmapped by its own size */
	struct mapped_file view = mf;
	if (view.size > size)
		view.size = size;
	bool rfc = ctf_rfc_probe(mf.data, view.size);
	if (growing && !rfc)
		view.size = whole_packets(mf.data, view.size);
	if (growing && view.size == 0) {
		/* not one whole packet yet: no trace yet */
		mapfile_close(&mf);
		return NULL;
	}
	struct ctf_meta *m = rfc ?
	    load_rfc(&view, mpath, diag, arg) : load_ctf(&view, mpath, diag,
	    arg);
	mapfile_close(&mf);
	return m;
}
