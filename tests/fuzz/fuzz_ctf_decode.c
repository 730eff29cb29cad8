/*
 * libFuzzer target for the CTF decoder: the first input byte picks one of
 * the metadata descriptions of fuzz_ctf.h (its low bits) and whether the
 * event classes are marked raw, as the reader marks cyg-profile ones (its
 * high bit: half the inputs take the decoder's raw path wherever an
 * event's scopes allow it); the rest is a data stream walked packet by
 * packet and event by event, each event printed in babeltrace2's layout
 * to /dev/null or, when raw, its fields read where the decoder says.
 *   make fuzz && tests/fuzz/fuzz_ctf_decode -max_total_time=60 SEEDS
 * Seeds: a selector byte then a stream file, e.g. for ctfgen's layout
 *   { printf '\003'; head -c 8192 tests/data/ctf/le-large/chan_0; } > s1
 *   { printf '\203'; head -c 8192 tests/data/ctf/le-large/chan_0; } > s2
 */
#include "fuzz_ctf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	struct ctf_meta *m = fuzz_meta((data[0] & 0x7f) % FUZZ_NMETA);
	fuzz_set_raw(m, (data[0] & 0x80) != 0);
	struct ctf_trace tr = { .dir = "", .m = m };
	struct ctf_stream s;
	memset(&s, 0, sizeof s);
	s.trace = &tr;
	s.path = "fuzz";
	s.data = data + 1;
	s.size = size - 1;
	s.d.slots = calloc((size_t)m->nslots + 1, sizeof(uint64_t));
	fuzz_walk(&s);
	free(s.d.slots);
	VEC_FREE(&s.pvals);
	VEC_FREE(&s.evals);
	return 0;
}
