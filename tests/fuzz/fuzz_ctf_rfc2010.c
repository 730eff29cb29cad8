/*
 * libFuzzer target for the 2010 RFC layout (ctf_rfc2010.c). The first
 * input byte says what the rest is:
 *   0: a metadata file (packets of description strings), read as the
 *      reader does (ctf_rfc_metadata);
 *   1: description text, parsed and resolved (ctf_rfc_parse);
 *   2, 3: a data stream of a description with type 1 (2) or type 2 and
 *      event_size (3) headers, sequences, enums and GNU C bitfields (the
 *      layout of ctfgen -R, so its streams are good seeds), walked packet
 *      by packet and event by event as the reader does.
 *   make fuzz && tests/fuzz/fuzz_ctf_rfc2010 -max_total_time=60 SEEDS
 * Seeds: e.g. { printf '\000'; cat tests/data/ctf/rfc2010/le-type2/metadata; }
 * and { printf '\003'; cat tests/data/ctf/rfc2010/le-type2/app_0; }.
 */
#include "fuzz_ctf.h"
#include "ctf/rfc2010/ctf_rfc2010.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define DESC(header, size) \
"trace { major = 1; minor = 1; }\n" \
"type addr_t { parent = uint64_t; base = 16; }\n" \
"type state_t { parent = enum; size = 4; align = 1;\n" \
"  map = { { 0, IDLE }, { 1, RUN }, { 5, \"WAIT IO\" }, { 15, DONE } }; }\n" \
"type vals_t { parent = sequence; length_type = uint8_t;\n" \
"  elem_type = uint16_t; }\n" \
"type pair_t { parent = struct; fields = {\n" \
"  { type { parent = gcc_bitfield; unit_size = 16; size = 12; " \
"signed = true; }, lo },\n" \
"  { type { parent = gcc_bitfield; unit_size = 16; size = 5; }, hi } }; }\n" \
"section { name = app; event { header_type = " header "; context {\n" \
"  event_size = " size "; fields = { { int32_t, vpid }, " \
"{ int32_t, vtid } }; } } }\n" \
"event { name = \"lttng_ust_cyg_profile_fast:func_entry\"; id = 0;\n" \
"  section = app; fields = { { addr_t, addr } }; }\n" \
"event { name = \"lttng_ust_cyg_profile_fast:func_exit\"; id = 1;\n" \
"  section = app; fields = { }; }\n" \
"event { name = \"ttvgen:sample\"; id = 2; section = app; fields = {\n" \
"  { type { parent = integer; size = 3; align = 1; }, a },\n" \
"  { state_t, state }, { string, text }, { vals_t, vals },\n" \
"  { type { parent = floating_point; size = 64; }, value },\n" \
"  { pair_t, pair } }; }\n"

static struct ctf_meta *metas[2];

static struct ctf_meta *
desc_meta(int which)
{
	if (metas[which] != NULL)
		return metas[which];
	static const char *const text[2] = { DESC("type1", "false"),
	    DESC("type2", "true") };
	struct ctf_meta *m = ctf_meta_new();
	m->byte_order = CTF_BO_LE;
	char err[512];
	if (ctf_rfc_parse(m, text[which], strlen(text[which]), err,
	    sizeof err) < 0 || ctf_meta_resolve(m, err, sizeof err) < 0) {
		fprintf(stderr, "fuzz_ctf_rfc2010: %s\n", err);
		abort();
	}
	/* ctfgen's session, so its streams open */
	((struct ctf_rfc *)m->rfc)->session_id = 0x5E55101Du;
	for (size_t i = 0; i < m->nstreams; i++)
		ctf_stream_prepare(m, m->streams[i]);
	return metas[which] = m;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	char err[512];
	int64_t off;
	struct ctf_meta *m;
	switch (data[0] & 3) {
	case 0:
		m = ctf_rfc_metadata(data + 1, size - 1, err, sizeof err, &off);
		ctf_meta_free(m);
		break;
	case 1:
		m = ctf_meta_new();
		m->byte_order = CTF_BO_LE;
		if (ctf_rfc_parse(m, (const char *)data + 1, size - 1, err,
		    sizeof err) == 0)
			(void)ctf_meta_resolve(m, err, sizeof err);
		ctf_meta_free(m);
		break;
	default: {
		m = desc_meta((data[0] & 3) - 2);
		struct ctf_trace tr = { .dir = "", .m = m };
		struct ctf_stream s;
		memset(&s, 0, sizeof s);
		s.trace = &tr;
		s.path = "fuzz";
		s.data = data + 1;
		s.size = size - 1;
		s.sc = m->streams[0];
		s.sc_fixed = true;
		s.d.slots = calloc((size_t)m->nslots + 1, sizeof(uint64_t));
		fuzz_walk(&s);
		free(s.d.slots);
		VEC_FREE(&s.pvals);
		VEC_FREE(&s.evals);
		break;
	}
	}
	return 0;
}
