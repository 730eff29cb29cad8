/* The table of readers, in the order their probes are asked. */
#include "reader.h"

extern const struct reader xray_reader;
extern const struct reader fxt_reader;
extern const struct reader coreprofiler_reader;
extern const struct reader ctf_reader;

const struct reader *const ttv_readers[] = {
	&xray_reader,
	&fxt_reader,
	&ctf_reader,
	&coreprofiler_reader,
	NULL,
};
