/*
 * babeltrace2's text layout for decoded CTF events (ctf_text.c), used to
 * compare ttv's decoding with babeltrace2's output.
 */
#ifndef TTV_CTF_TEXT_H
#define TTV_CTF_TEXT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ctf_decode.h"

struct ctf_text_state {
	int64_t prev_ns;
	bool have_prev;
};

void ctf_text_event(FILE *f, const struct ctf_item *it,
    struct ctf_text_state *st);

#endif
