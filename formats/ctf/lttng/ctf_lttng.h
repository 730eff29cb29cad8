/*
 * LTTng-UST function traces: cyg-profile addresses to model functions,
 * named at the end from the traced binaries (ctf_lttng.c).
 */
#ifndef TTV_CTF_LTTNG_H
#define TTV_CTF_LTTNG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "builder.h"

struct ctf_lttng;

struct ctf_lttng *ctf_lttng_new(const char *sysroot);
void ctf_lttng_free(struct ctf_lttng *l);
/* A binary loaded in a process (statedump bin_info, dl/lib load). */
void ctf_lttng_bin(struct ctf_lttng *l, int64_t vpid, uint64_t baddr,
    uint64_t memsz, const char *path, size_t pathlen, bool is_pic);
/* The function of a run-time address (the same one for the same pair). */
func_id ctf_lttng_func(struct ctf_lttng *l, struct builder *b, int64_t vpid,
    uint64_t addr);
/* How much it holds (functions, binaries): what changes when a walk
 * makes a function or meets a binary. */
size_t ctf_lttng_size(const struct ctf_lttng *l);
/* Names every function from the binaries; returns how many were named. */
size_t ctf_lttng_finish(struct ctf_lttng *l, struct builder *b);

/* What it holds written as bytes (reader.h, grow_save): the binaries
 * met, their symbols if read, and the functions made; and made again,
 * for the same sysroot, into an empty one (false when the bytes are
 * damaged or name functions b does not have). */
struct blob;
struct blob_in;
void ctf_lttng_save(const struct ctf_lttng *l, struct blob *w);
bool ctf_lttng_load(struct ctf_lttng *l, const struct builder *b,
    struct blob_in *in);

#endif
