/*
 * libFuzzer target for LTTng's index files and their use as a hint
 * (formats/ctf/stream/ctf_index.c and the resuming in ctf_packets.c).
 * Input: a selector byte (bit 0: ctfgen's layout big-endian, bit 1: event
 * classes marked raw), the index's length in 2 bytes (little-endian), the
 * index file, then the stream file. The index is parsed against the stream's
 * size; when it is usable, the stream is walked with it, so that damaged
 * packets send the walk to the entries it lists.
 *   make fuzz && tests/fuzz/fuzz_ctf_index -max_total_time=60 SEEDS
 * Seeds: from ctfgen -i, e.g. with T a trace it wrote (index of 448 bytes):
 *   { printf '\000\300\001'; cat T/index/chan_0.idx T/chan_0; } > s1
 */
#include "fuzz_ctf.h"
#include "ctf/stream/ctf_index.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t fuzz_msgs;

static void
fuzz_diag(void *arg, bool error, const char *file, int64_t off,
    const char *msg)
{
	(void)arg;
	(void)error;
	(void)off;
	fuzz_msgs += strlen(file) + strlen(msg);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 3)
		return 0;
	size_t ilen = (size_t)data[1] | (size_t)data[2] << 8;
	if (ilen > size - 3)
		ilen = size - 3;
	const uint8_t *idx = data + 3, *stream = idx + ilen;
	size_t ssize = size - 3 - ilen;
	struct ctf_meta *m = fuzz_meta(data[0] & 1 ? FUZZ_CYG_BE : FUZZ_CYG_LE);
	fuzz_set_raw(m, (data[0] & 2) != 0);

	struct ctf_index ix;
	memset(&ix, 0, sizeof ix);
	char msg[256];
	uint64_t off;
	int rc = ctf_index_parse(idx, ilen, ssize, &ix, msg, sizeof msg, &off);
	if (rc >= 0) {
		if (off > ilen || strlen(msg) >= sizeof msg)
			abort();
		/* what the parser promises */
		for (size_t i = 0; i < ix.n; i++)
			if (ix.e[i].psize == 0 || ix.e[i].psize % 8 ||
			    ix.e[i].csize > ix.e[i].psize ||
			    ix.e[i].off + ix.e[i].psize / 8 > ssize ||
			    (i > 0 && ix.e[i].off < ix.e[i - 1].off +
			    ix.e[i - 1].psize / 8))
				abort();
		ix.path = "fuzz.idx";
		ix.diag = fuzz_diag;
	} else if (off > ilen)
		abort();

	struct ctf_trace tr = { .dir = "", .m = m };
	struct ctf_stream s;
	memset(&s, 0, sizeof s);
	s.trace = &tr;
	s.path = "fuzz";
	s.data = stream;
	s.size = ssize;
	s.idx = rc >= 0 ? &ix : NULL;
	s.d.slots = calloc((size_t)m->nslots + 1, sizeof(uint64_t));
	fuzz_walk(&s);
	free(s.d.slots);
	free(ix.e);
	VEC_FREE(&s.pvals);
	VEC_FREE(&s.evals);
	return 0;
}
