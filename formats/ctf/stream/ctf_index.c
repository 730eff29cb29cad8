/*
 * LTTng's packet index files: a 16-byte big-endian header (magic
 * 0xC1F1DCC1, major 1, minor, entry size) and one entry per packet of the
 * stream file beside them, big-endian whatever the trace's byte order:
 * offset (bytes), packet and content sizes (bits), first and last
 * timestamps, events discarded and stream id; 1.1 entries add the stream
 * instance id and the packet sequence number, and later minors may add
 * more, which is skipped. A file that does not hold together (wrong
 * magic or version, entries out of order, overlapping or past the end of
 * the stream file) is reported once and not used at all.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mapfile.h"
#include "xalloc.h"
#include "ctf_index.h"

static uint32_t
be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	    (uint32_t)p[2] << 8 | p[3];
}

static uint64_t
be64(const uint8_t *p)
{
	return (uint64_t)be32(p) << 32 | be32(p + 4);
}

int
ctf_index_parse(const uint8_t *data, size_t size, uint64_t stream_size,
    struct ctf_index *ix, char *msg, size_t msgsize, uint64_t *msgoff)
{
	*msgoff = 0;
	msg[0] = '\0';
	if (size < CTF_INDEX_HEADER) {
		snprintf(msg, msgsize, "index file of %zu bytes, shorter than "
		    "its %d-byte header", size, CTF_INDEX_HEADER);
		return -1;
	}
	uint32_t magic = be32(data), major = be32(data + 4),
	    minor = be32(data + 8), esize = be32(data + 12);
	if (magic != CTF_INDEX_MAGIC) {
		snprintf(msg, msgsize, "invalid index magic 0x%08x (expecting "
		    "0x%08x)", magic, CTF_INDEX_MAGIC);
		return -1;
	}
	if (major != 1) {
		*msgoff = 4;
		snprintf(msg, msgsize, "unsupported index version %u.%u "
		    "(expecting 1.x)", major, minor);
		return -1;
	}
	/* 1.0 entries are 56 bytes, 1.1 ones 72; a later minor may add
	 * fields at the end, but never fewer than 1.0's */
	if (esize < CTF_INDEX_ENTRY_1_0 || (minor >= 1 && esize < 72) ||
	    esize > 1u << 16) {
		*msgoff = 12;
		snprintf(msg, msgsize, "invalid index entry size %u for "
		    "version %u.%u", esize, major, minor);
		return -1;
	}
	size_t n = (size - CTF_INDEX_HEADER) / esize;
	size_t tail = (size - CTF_INDEX_HEADER) % esize;
	struct ctf_index_entry *e = n ? xcalloc(n, sizeof *e) : NULL;
	uint64_t first_sid = 0;
	for (size_t i = 0; i < n; i++) {
		const uint8_t *p = data + CTF_INDEX_HEADER + i * esize;
		struct ctf_index_entry *x = &e[i];
		x->off = be64(p);
		x->psize = be64(p + 8);
		x->csize = be64(p + 16);
		x->ts_begin = be64(p + 24);
		x->ts_end = be64(p + 32);
		x->stream_id = be64(p + 48);
		*msgoff = (uint64_t)(p - data);
		if (x->psize == 0 || x->psize % 8 != 0 || x->csize > x->psize) {
			snprintf(msg, msgsize, "entry %zu: invalid packet sizes "
			    "(content %llu bits, packet %llu bits)", i,
			    (unsigned long long)x->csize,
			    (unsigned long long)x->psize);
			goto bad;
		}
		if (x->off > stream_size ||
		    x->psize / 8 > stream_size - x->off) {
			snprintf(msg, msgsize, "entry %zu: packet at offset %llu "
			    "of %llu bytes goes past the end of the stream "
			    "file (%llu bytes)", i,
			    (unsigned long long)x->off,
			    (unsigned long long)(x->psize / 8),
			    (unsigned long long)stream_size);
			goto bad;
		}
		if (i > 0 && x->off < e[i - 1].off + e[i - 1].psize / 8) {
			snprintf(msg, msgsize, "entry %zu: packet at offset %llu "
			    "before the end of the previous one (offset %llu, "
			    "%llu bytes)", i, (unsigned long long)x->off,
			    (unsigned long long)e[i - 1].off,
			    (unsigned long long)(e[i - 1].psize / 8));
			goto bad;
		}
		/* one index per stream file, one stream per file */
		if (i == 0)
			first_sid = x->stream_id;
		else if (x->stream_id != first_sid) {
			snprintf(msg, msgsize, "entry %zu: stream id %llu "
			    "differs from the first entry's (%llu)", i,
			    (unsigned long long)x->stream_id,
			    (unsigned long long)first_sid);
			goto bad;
		}
	}
	ix->e = e;
	ix->n = n;
	ix->next = 0;
	ix->disagreed = false;
	*msgoff = 0;
	if (tail != 0) {
		/* as a tracer killed while writing it leaves it */
		*msgoff = CTF_INDEX_HEADER + (uint64_t)n * esize;
		snprintf(msg, msgsize, "index ends in a partial entry of %zu "
		    "bytes, left out", tail);
		return 0;
	}
	return 1;
bad:
	free(e);
	return -1;
}

size_t
ctf_index_after(const struct ctf_index *ix, uint64_t off)
{
	size_t lo = 0, hi = ix->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ix->e[mid].off <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

struct ctf_index *
ctf_index_load(const char *stream, uint64_t stream_size, const char *root,
    ctf_diag_fn diag, void *arg)
{
	/* DIR/STREAM -> DIR/index/STREAM.idx */
	const char *slash = strrchr(stream, '/');
	const char *base = slash ? slash + 1 : stream;
	int dlen = slash ? (int)(slash - stream) + 1 : 0;
	char *rel = xasprintf("%.*sindex/%s.idx", dlen, stream, base);
	char *full = root[0] ? xasprintf("%s/%s", root, rel) : xstrdup(rel);
	struct stat st;
	struct mapped_file mf;
	char *err = NULL;
	/* no index is the common case; a present but unreadable one is
	 * worth a word */
	if (stat(full, &st) != 0 && (errno == ENOENT || errno == ENOTDIR)) {
		free(full);
		free(rel);
		return NULL;
	}
	if (mapfile_open(full, &mf, &err) < 0) {
		if (diag)
			diag(arg, false, rel, -1, err ? err : "cannot open");
		free(err);
		free(full);
		free(rel);
		return NULL;
	}
	free(full);
	struct ctf_index *ix = xcalloc(1, sizeof *ix);
	char msg[256];
	uint64_t off;
	int rc = ctf_index_parse(mf.data, mf.size, stream_size, ix, msg,
	    sizeof msg, &off);
	size_t index_size = mf.size;
	mapfile_close(&mf);
	if (rc < 0 && stream_size == 0 && index_size > CTF_INDEX_HEADER) {
		/* An empty stream its index gives packets to lost them: the
		 * file was cut (a session not flushed, a copy stopped). That
		 * is damage, not a doubtful hint. */
		if (diag)
			diag(arg, true, stream, 0, "stream file is empty but "
			    "its index lists packets: the stream was cut");
		free(ix);
		free(rel);
		return NULL;
	}
	if (rc < 0) {
		if (diag) {
			char m2[300];
			snprintf(m2, sizeof m2, "%s; index not used", msg);
			diag(arg, false, rel, (int64_t)off, m2);
		}
		free(ix);
		free(rel);
		return NULL;
	}
	if (rc == 0 && diag)
		diag(arg, false, rel, (int64_t)off, msg);
	ix->path = rel;
	ix->diag = diag;
	ix->arg = arg;
	return ix;
}

void
ctf_index_free(struct ctf_index *ix)
{
	if (ix == NULL)
		return;
	free(ix->e);
	free(ix->path);
	free(ix);
}
