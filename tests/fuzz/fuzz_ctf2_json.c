/*
 * libFuzzer target for the CTF 2 front end: the input is metadata (a JSON
 * text sequence), parsed and resolved as the reader does (ctf2_parse,
 * ctf_meta_resolve).
 *   make fuzz && tests/fuzz/fuzz_ctf2_json -max_total_time=60 \
 *       SEEDS   (seeds: CTF 2 metadata files, e.g.
 *                tests/data/ctf/le-large-ctf2/metadata)
 */
#include <stddef.h>
#include <stdint.h>

#include "ctf/ctf2/ctf2_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ctf_meta *m = ctf_meta_new();
	char err[512];
	uint64_t off;
	if (ctf2_parse(m, (const char *)data, size, err, sizeof err, &off) == 0)
		(void)ctf_meta_resolve(m, err, sizeof err);
	ctf_meta_free(m);
	return 0;
}
