/*
 * A trace's metadata file (ctf_metadata.c): what it looks like, its text
 * (plain, or in packets), and the resolved description read from it
 * through the front end it is written for: the 2010 RFC layout
 * (rfc2010/), CTF 2's JSON fragments (ctf2/) or TSDL (tsdl/).
 */
#ifndef TTV_CTF_METADATA_H
#define TTV_CTF_METADATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stream/ctf_packets.h"

/* Gets the TSDL text of a metadata file, plain or packetized (*text is
 * malloc'd). Returns 0, or -1 with a message and *erroff = the offset. */
int ctf_metadata_text(const unsigned char *data, size_t size, char **text,
    size_t *len, uint8_t uuid[16], bool *packetized, char *err,
    size_t errsize, uint64_t *erroff);
/* Are the packets of packetized metadata big-endian? */
bool ctf_metadata_be(const unsigned char *data, size_t size);
/* Does this look like a metadata file (CTF 1.8 or 2, plain or in packets,
 * or the 2010 RFC's)? */
bool ctf_metadata_probe(const unsigned char *head, size_t len);

/* The metadata file at full (mpath: the same for messages, relative to
 * what was opened) read into a resolved description. NULL when it cannot
 * be read; what is wrong, and the warnings, are said through diag.
 * growing: the file is being written, its packets are read up to the
 * last whole one. */
struct ctf_meta *ctf_metadata_load(const char *full, const char *mpath,
    bool growing, ctf_diag_fn diag, void *arg);
/* The same, of the file's first size bytes only: the metadata as it was
 * when a growing load's state was saved (ctf_reader_restore_meta). */
struct ctf_meta *ctf_metadata_load_first(const char *full, const char *mpath,
    bool growing, size_t size, ctf_diag_fn diag, void *arg);

#endif
