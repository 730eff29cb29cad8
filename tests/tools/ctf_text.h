/*
 * babeltrace2's text layout for decoded CTF events (ctf_text.c), for the
 * tests: ctf_text_dump prints a trace so, which the conformance tests
 * compare with babeltrace2's output, and the CTF fuzz targets print what
 * they decode.
 */
#ifndef TTV_TESTS_CTF_TEXT_H
#define TTV_TESTS_CTF_TEXT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ctf/stream/ctf_packets.h"

struct ctf_text_state {
	int64_t prev_ns;
	bool have_prev;
};

void ctf_text_event(FILE *f, const struct ctf_item *it,
    struct ctf_text_state *st);

#endif
