/*
 * libFuzzer target for the TSDL front end: the input is metadata text,
 * parsed and resolved as the reader does (tsdl_parse, ctf_meta_resolve).
 *   make fuzz && tests/fuzz/fuzz_ctf_tsdl -max_total_time=60 \
 *       -dict=... tests/data/ctf/le-large   (seeds: any metadata files)
 */
#include <stddef.h>
#include <stdint.h>

#include "ctf/tsdl/tsdl_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ctf_meta *m = ctf_meta_new();
	char err[512];
	if (tsdl_parse(m, (const char *)data, size, err, sizeof err) == 0)
		(void)ctf_meta_resolve(m, err, sizeof err);
	ctf_meta_free(m);
	return 0;
}
