/*
 * The trace layout of the 2010 "Common Trace Format Proposal for Linux
 * (v1.1)" RFC, CTF's ancestor: a directory holding a `metadata` file
 * and one data file per section (and processor), each a run of packets
 * behind a fixed 48-byte header (magic 0xC1FC1FC1 in the writer's byte
 * order), events behind a fixed "type 1" or "type 2" header. The
 * metadata file is packets of the same kind whose content is
 * NUL-terminated description strings (`trace`, `section`, `event`,
 * `type` blocks).
 *
 * The front end turns it into the resolved description of ctf_meta.h,
 * so the CTF decoder, packet walk, merge and model builder read it as
 * they read CTF 1.8. Where the RFC is ambiguous, the choices made are
 * written down in doc/ctf-rfc-2010.md.
 */
#ifndef TTV_CTF_RFC2010_H
#define TTV_CTF_RFC2010_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "types/ctf_meta.h"
#include "types/ctf_names.h"

#define RFC_MAGIC 0xC1FC1FC1u
#define RFC_HEADER 48		/* bytes of every packet header */

/* What the RFC layout has that CTF does not say in types. */
struct ctf_rfc {
	uint32_t session_id;	/* the metadata's: every packet's */
	const char **sections;	/* by stream class index */
	size_t nsections;
	struct ctf_names by_name;	/* name -> stream class index */
};

/* Does a metadata file start with the RFC's packet magic (either byte
 * order)? */
bool ctf_rfc_probe(const unsigned char *head, size_t len);

/* Reads an RFC metadata file into a new, resolved description. NULL on
 * error, with what is wrong in err and where: *erroff the file offset
 * of a damaged packet, or -1 when err begins with "line L, column C:"
 * (the description strings, NULs counted as line ends). */
struct ctf_meta *ctf_rfc_metadata(const unsigned char *data, size_t size,
    char *err, size_t errsize, int64_t *erroff);

/* Parses description text (what the metadata packets hold) into m, not
 * resolved yet: 0, or -1 with "line L, column C: what" in err. */
int ctf_rfc_parse(struct ctf_meta *m, const char *text, size_t len,
    char *err, size_t errsize);

/* The stream class of a data file by its name: the section of that
 * name, or of that name followed by `_` and a number (one file per
 * processor), or the only section. NULL if none. */
struct ctf_stream_class *ctf_rfc_section_of(const struct ctf_meta *m,
    const char *file);

/* CRC-32 (IEEE 802.3, as zlib computes it) of n bytes: the RFC's
 * checksum scheme 3. */
uint32_t ctf_rfc_crc32(const uint8_t *p, size_t n);

#endif
