/*
 * The resolved description of a CTF trace: field types with their sizes,
 * alignments and byte orders, the clock, stream and event classes, and
 * sequence lengths and variant tags resolved to value slots.
 *
 * This is the layer between metadata front ends and the decoder: the TSDL
 * parser (tsdl/) builds it from CTF 1.8 text, the CTF 2 front end (ctf2/)
 * from JSON fragments, the 2010 RFC's (rfc2010/) from its description
 * strings; the resolution (ctf_types.c) completes it, and the decoder
 * (stream/) only ever reads it.
 *
 * Everything in a ctf_meta is allocated in its arena (ctf_arena.c) and
 * freed at once by ctf_meta_free(). Metadata may describe tens of
 * thousands of classes, members, labels or types: nothing here is grown
 * by a copy per item or looked up by walking them all, and what the types
 * expand to is held to a budget (ctf_meta_limit).
 */
#ifndef TTV_CTF_META_H
#define TTV_CTF_META_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hashmap.h"

enum ctf_kind {
	CTF_INT, CTF_FLOAT, CTF_ENUM, CTF_STRING, CTF_STRUCT, CTF_VARIANT,
	CTF_ARRAY, CTF_SEQUENCE,
};

enum ctf_byte_order { CTF_BO_NATIVE, CTF_BO_LE, CTF_BO_BE };

/* What a field means to the reader, found by its name and scope. */
enum ctf_role {
	ROLE_NONE,
	ROLE_MAGIC, ROLE_UUID, ROLE_STREAM_ID, ROLE_STREAM_INSTANCE_ID,
	ROLE_CONTENT_SIZE, ROLE_PACKET_SIZE, ROLE_TS_BEGIN, ROLE_TS_END,
	ROLE_EVENTS_DISCARDED, ROLE_PACKET_SEQ_NUM,
	ROLE_EVENT_ID, ROLE_TIMESTAMP,
};

struct ctf_type;
struct ctf_flat_op;
struct ctf_names;

/* A CTF 2 field location: where a dynamic length or a selector is, as
 * member names from a root scope, or from the struct holding the field
 * that needs it (scope -1) after going `up` structs out. */
struct ctf_loc {
	int scope;		/* enum ctf_scope, or -1 */
	int up;
	const char **names;
	size_t nnames;
};

/* Where a sequence or a variant was declared, for its length or tag: in
 * struct `st` (as the parser built it) after its first `upto` fields,
 * that struct itself sitting where `up` says. A relative path is looked
 * up there first (CTF 1.8 section 7.3.2: lexical scope), which differs
 * from the place of use when the type was named by a typedef. */
struct ctf_lex {
	const struct ctf_type *st;
	size_t upto;
	const struct ctf_lex *up;
};

/* Integers wider than this are decoded as their bytes (ctf_val.str,
 * size / 8 of them) and shown as big-number text (ctf_bigint_text). */
#define CTF_INT_MAX_BITS 4096

struct ctf_enum_map {
	const char *label;
	int64_t lo, hi;		/* compared as unsigned when the container is */
};

/* The maps of an enum with many of them, for ctf_enum_label: the values
 * as disjoint runs sorted by value, each with the first map holding it
 * (values as compared: a signed one plus 2^63). */
struct ctf_enum_index {
	struct ctf_enum_run {
		uint64_t lo, hi;
		uint32_t map;
	} *runs;
	size_t nruns;
	/* unsigned enums: the largest n with 0..n all in maps that do not
	 * end at UINT64_MAX (event header plans), and whether there is one */
	uint64_t prefix_max;
	bool prefix_any;
};

struct ctf_field {
	const char *name;	/* as in the metadata (leading '_' kept) */
	const char *display;	/* one leading '_' removed */
	struct ctf_type *type;
	int slot;		/* >= 0: its value is stored for a length/tag */
	enum ctf_role role;
};

struct ctf_type {
	enum ctf_kind kind;
	uint32_t align;		/* bits */
	/* where it was declared, for messages: line and column of TSDL; for
	 * CTF 2, line is 1 + the byte offset of its fragment, col 0 */
	int line, col;

	/* integers, enum containers, floats */
	uint32_t size;		/* bits */
	uint8_t byte_order;	/* enum ctf_byte_order, resolved at the end */
	bool is_signed;
	uint8_t base;		/* 2, 8, 10, 16 */
	uint8_t encoding;	/* 0 none, 1 UTF8/ASCII */
	int clock;		/* index in meta->clocks, or -1 */
	const char *clock_name;	/* map = clock.NAME.value, until resolved */
	uint32_t exp_dig, mant_dig;
	/* CTF 2: a variable-length (LEB128) integer, byte-aligned, read as
	 * at most 64 bits (size says 64); a boolean (an integer printed as
	 * true or false); the role its field class declares, for the scope
	 * it was built for */
	bool varlen, is_bool;
	uint8_t role;		/* enum ctf_role */

	/* enums */
	struct ctf_enum_map *maps;
	size_t nmaps;
	const struct ctf_enum_index *enum_index;	/* NULL: few maps */

	/* structs and variants */
	struct ctf_field *fields;
	size_t nfields;
	/* the fields by name, when added by ctf_field_add (NULL: fewer
	 * than CTF_FIELDS_INDEXED, or a CTF 2 variant's options, which are
	 * never looked up by name); shared by the copies of the type */
	struct ctf_names *names;
	const char *tag;	/* variant: tag path as written, NULL if untagged */
	int tag_slot;		/* resolved */
	/* variant: option index for each of the tag enum's maps (-1: none) */
	int *opt_of_map;
	size_t nopt_of_map;
	const struct ctf_type *tag_type;
	/* CTF 2 variants select by ranges of their own: maps/nmaps hold
	 * every option's ranges (label: the option's name) and opt_of_map
	 * is filled by the front end; loc says where the selector is. An
	 * optional is such a variant of one option, absent (no value
	 * under it) when no range holds the selector's value */
	bool optional;
	const struct ctf_loc *loc;	/* also a sequence's length */

	/* arrays and sequences */
	struct ctf_type *elem;
	uint64_t length;	/* arrays */
	const char *length_path;	/* sequences */
	int length_slot;
	bool is_text;		/* 8-bit encoded integer elements: a string */

	/* struct of integers, enums and floats only: decoded in one loop
	 * over `ops`, the fields' layouts side by side */
	bool flat;
	struct ctf_flat_op *ops;
	/* flat, byte-aligned, whole-byte fields with nothing special: each
	 * field at a fixed byte offset, fixed_bits in all */
	bool fixed;
	uint32_t fixed_bits;

	/* the type the parser made that this one is a copy of (NULL: it
	 * is that type) */
	const struct ctf_type *origin;
	/* sequences and variants: where they were declared (NULL: outside
	 * any struct) */
	const struct ctf_lex *lex;
	/* the 2010 RFC's GNU C bitfields: an integer that does not fit in
	 * what is left of its unit_size-bit unit starts at the next unit
	 * (0: an ordinary integer) */
	uint32_t unit_size;
};

struct ctf_flat_op {
	const struct ctf_field *f;
	const struct ctf_type *t;
	uint32_t size, align;
	bool be, is_signed, is_float;
	bool special;		/* has a slot, a role or a clock */
	uint32_t off;		/* bytes from the struct start, when fixed */
};

enum ctf_scope {
	SCOPE_PACKET_HEADER, SCOPE_PACKET_CONTEXT, SCOPE_EVENT_HEADER,
	SCOPE_STREAM_EVENT_CONTEXT, SCOPE_EVENT_CONTEXT, SCOPE_EVENT_FIELDS,
	SCOPE_COUNT
};

struct ctf_clock {
	const char *name;
	uint64_t freq;
	int64_t offset_s;
	int64_t offset;		/* cycles */
	const char *description;
	const char *uuid;
	/* resolved: ns of cycle 0, whether cycles are already ns, and
	 * where the times clamped to the 64-bit ns range are counted (the
	 * trace's ctf_meta.clock_clamps; NULL: nowhere) */
	int64_t base_ns;
	bool ns_cycles;
	_Atomic uint64_t *clamps;
};

/* An integer the reader wants of every event of a raw class, at a fixed
 * place of one of its scopes: the decoder reads it (ctf_item.u.picked),
 * so that the events' bytes are touched by the thread decoding them. */
struct ctf_pick {
	uint8_t scope;		/* 1..3; 0: none */
	uint8_t size;		/* 8, 16, 32 or 64 */
	bool be, is_signed;
	uint32_t off;		/* bytes from the scope's start */
};

#define CTF_PICK_MAX 3

struct ctf_event_class {
	const char *name;
	uint64_t id;
	uint64_t stream_id;
	bool has_id, has_stream_id;
	int64_t loglevel;
	struct ctf_type *context;	/* may be NULL */
	struct ctf_type *fields;	/* may be NULL */
	int line, col;
	/* filled by the reader: its own per-class data */
	void *user;
	/* set by the reader: it reads this event's context and fields
	 * itself at fixed offsets (ctf_stream.raw) when all of them are
	 * fixed structs, so no values are built for it; the integers it
	 * wants of each are in pick */
	bool raw;
	struct ctf_pick pick[CTF_PICK_MAX];
	/* the decoder's: 1 when its raw scopes sit at fixed byte offsets
	 * (raw_off, UINT32_MAX for none) from a byte-aligned event body
	 * raw_bits long, -1 when not, 0 not known yet */
	int8_t raw_const;
	uint32_t raw_off[4];
	uint32_t raw_bits;
	/* where each pick sits in such a body (UINT32_MAX: none), and how
	 * to cut it out of the 8 bytes read there (ctf_pick_wide): shifted
	 * left, then right (arithmetically), then masked (0: no pick, which
	 * reads at 0) */
	uint32_t pick_at[CTF_PICK_MAX];
	struct ctf_pick_cut {
		uint32_t at;
		uint8_t lsh, rsh;
		uint64_t mask;
	} pick_cut[CTF_PICK_MAX];
	bool picks_be;		/* the picks are big-endian */
	bool picks_wide;	/* ... all of them: they can be cut so */
};

/* A resolved root scope instance: types are deep-copied per scope so a
 * shared alias can resolve its paths differently in each place. */
struct ctf_stream_class {
	uint64_t id;
	bool has_id;
	struct ctf_type *packet_context;
	struct ctf_type *event_header;
	struct ctf_type *event_context;
	struct ctf_event_class **events;	/* by index */
	size_t nevents;
	size_t events_cap;	/* room in events (arena memory: grown by
				 * doubling, so n classes cost O(n)) */
	/* id -> event, for small dense ids; sparse ids use a list sorted
	 * by id (`sorted`, nevents long) */
	struct ctf_event_class **by_id;
	size_t nby_id;
	struct ctf_event_class **sorted;
	int clock;		/* the clock of its timestamps, or -1 */
	struct ctf_header_plan *hplan;	/* or NULL */
	bool has_raw;		/* an event class of it is read raw */
	/* by small id: the bits of the body of a raw class with a constant
	 * layout (ctf_event_class.raw_bits), UINT32_MAX for any other
	 * (ctf_stream_prepare) */
	uint32_t *raw_adv;
	size_t nraw_adv;
	uint32_t raw_adv_max;	/* the largest of them */
	int line;
	void *user;		/* the reader's own per-class data */
	/* the 2010 RFC layout's `event_size`: the first field of the
	 * event context is the size of the payload in bytes, checked */
	bool payload_size;
};

/* LTTng's event headers (compact and large): an enum id and a variant on
 * it holding either {timestamp} or {id, timestamp}. Recognised by their
 * shape so the decoder can read them without walking the types. */
struct ctf_header_plan {
	const struct ctf_type *header;	/* the struct */
	const struct ctf_type *id;	/* the enum */
	const struct ctf_field *id_field;
	uint64_t ext_id;		/* id value selecting the extended form */
	uint64_t compact_max;		/* ids 0..compact_max are all labelled */
	const struct ctf_type *compact, *extended;	/* option structs */
	const struct ctf_field *c_ts, *e_id, *e_ts;
	/* the compact form in one load: LTTng's compact header (id and
	 * timestamp packed in 32 bits) or large one (16-bit id, 32-bit
	 * timestamp at byte 2), same byte order, the header byte-aligned */
	enum { HP_SLOW, HP_PACKED32, HP_LARGE } fast;
	bool fast_be;
	bool c_clock;			/* the compact timestamp is a clock */
};

struct ctf_env {
	const char *key;
	const char *str;	/* NULL: integer */
	int64_t i;
};

struct ctf_stream;
struct ctf_rfc;

struct ctf_meta {
	int major, minor;
	bool has_major, has_minor;
	uint8_t uuid[16];
	bool has_uuid;
	uint8_t byte_order;	/* CTF_BO_LE or CTF_BO_BE */
	int bo_line, bo_col;	/* where the trace block gave it, or 0 */
	struct ctf_type *packet_header;

	/* arrays of the arena that the front ends grow by doubling
	 * (ctf_grow), so that n items cost O(n) */
	struct ctf_clock *clocks;
	size_t nclocks, clocks_cap;
	struct ctf_env *env;
	size_t nenv, env_cap;
	struct ctf_stream_class **streams;
	size_t nstreams, streams_cap;
	/* the streams sorted by id, for ctf_stream_by_id (resolved) */
	struct ctf_stream_class **streams_by_id;
	int nslots;
	/* times of its clocks out of the 64-bit ns range, clamped to it
	 * (counted by the threads that decode; the loader says how many) */
	_Atomic uint64_t clock_clamps;
	/* warnings about the metadata ("line L, column C: ..."), kept going */
	const char **warns;
	size_t nwarns, capwarns;

	/* the 2010 RFC layout (ctf_rfc2010.h): its own description, NULL
	 * for CTF; its packets' sizes are in bytes, not bits; what its
	 * packet headers must say more, checked as each packet opens (0,
	 * or -1 with why in err); and the stream class of a data file, by
	 * the file's name (NULL: not one of the trace's), where CTF's
	 * packets say it */
	const struct ctf_rfc *rfc;
	bool sizes_in_bytes;
	int (*packet_check)(const struct ctf_stream *s, char *err,
	    size_t errsize);
	struct ctf_stream_class *(*class_of_file)(const struct ctf_meta *m,
	    const char *file);

	/* every type, so resolution can walk them all */
	struct ctf_type **types;
	size_t ntypes, captypes;
	/* the arena, and what it may hold (0: no limit; see
	 * ctf_meta_limit) */
	void **allocs;		/* its blocks */
	size_t nallocs, capallocs;
	char *chunk;		/* room left in the last small-piece block */
	size_t chunk_left;
	uint64_t arena_bytes, arena_limit;
	/* the enum indexes made, by maps array (ctf_enum_prepare): the
	 * hashmap's values are positions in enum_indexes */
	struct hashmap enum_maps;
	const struct ctf_enum_index **enum_indexes;
	size_t nenum_indexes, enum_indexes_cap;
};

/* The most a metadata text of len bytes may make the arena hold: its
 * types, once every alias and shared struct is expanded where it is
 * used, must fit in the memory budget (README: 64 MiB + 16 x the input).
 * Metadata whose types expand past it (a chain of typedefs of structs of
 * the last one, each use a copy) is refused rather than read. */
#define CTF_META_ARENA_BASE ((uint64_t)32 << 20)
#define CTF_META_ARENA_PER_BYTE 16
void ctf_meta_limit(struct ctf_meta *m, size_t len);
/* Is the arena past its limit? (Its allocations still succeed: the front
 * ends and the resolution check this at their own pace.) */
bool ctf_meta_over(const struct ctf_meta *m);
/* The message for it: "metadata types expand to more than N MiB ..." */
const char *ctf_meta_over_msg(const struct ctf_meta *m, char *buf,
    size_t size);

struct ctf_meta *ctf_meta_new(void);
void ctf_meta_free(struct ctf_meta *m);
void *ctf_alloc(struct ctf_meta *m, size_t size);
char *ctf_strdup(struct ctf_meta *m, const char *s, size_t len);
struct ctf_type *ctf_type_new(struct ctf_meta *m, enum ctf_kind kind);
struct ctf_type *ctf_type_copy(struct ctf_meta *m, const struct ctf_type *t);
/* An arena array of items of size bytes, with room for one more than n:
 * itself, or a copy twice as large (*cap updated). */
void *ctf_grow(struct ctf_meta *m, void *items, size_t n, size_t *cap,
    size_t size);

/* From this many fields on, a struct's are indexed by name. */
#define CTF_FIELDS_INDEXED 8
/* Appends a field to a struct or variant whose fields were all added
 * this way (the array grows by doubling), named name (kept by pointer:
 * an arena or static string), its slot -1. No check for a duplicate. */
struct ctf_field *ctf_field_add(struct ctf_meta *m, struct ctf_type *st,
    const char *name, struct ctf_type *type);
/* The index of the field named s[0..len) among the first upto of st (the
 * first such when names repeat), or -1. */
int64_t ctf_field_find(const struct ctf_type *st, size_t upto, const char *s,
    size_t len);
/* The index below upto of the last field (the first if not last) whose
 * name is s[0..len), or it with one leading '_' more or less, or -1. */
int64_t ctf_field_find_loose(const struct ctf_type *st, size_t upto,
    const char *s, size_t len, bool last);
void ctf_meta_warn(struct ctf_meta *m, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Checks and resolves what the parser built: byte orders, alignments,
 * paths of lengths and tags, roles, event ids. Writes a message into err
 * and returns -1 on a metadata error. */
int ctf_meta_resolve(struct ctf_meta *m, char *err, size_t errsize);

const char *ctf_env_str(const struct ctf_meta *m, const char *key);
struct ctf_stream_class *ctf_stream_by_id(const struct ctf_meta *m,
    uint64_t id);
struct ctf_event_class *ctf_event_by_id(const struct ctf_stream_class *s,
    uint64_t id);
/* The label of an enum value (the first map holding it), or NULL; its
 * map's index in *index (-1: none). */
const char *ctf_enum_label(const struct ctf_type *t, uint64_t raw, int *index);
/* Indexes the maps of an enum with CTF_ENUM_INDEXED maps or more
 * (t->enum_index), once per maps array however many types share it. */
void ctf_enum_prepare(struct ctf_meta *m, struct ctf_type *t);
#define CTF_ENUM_INDEXED 16
/* Nanoseconds from the Unix epoch (or the clock's origin) of a value;
 * out of int64's range, clamped to it and counted in *c->clamps. */
int64_t ctf_clock_ns(const struct ctf_clock *c, uint64_t cycles);

#endif
