/*
 * Read-only file mappings. Readers decode straight from the mapping; once a
 * range has been decoded, mapfile_release() drops its pages so that a trace
 * much larger than memory does not count twice in peak RSS.
 */
#ifndef TTV_MAPFILE_H
#define TTV_MAPFILE_H

#include <stddef.h>
#include <stdint.h>

struct mapped_file {
	const unsigned char *data;	/* NULL when size == 0 */
	size_t size;
	char *path;
};

/* Maps a regular file (never waits on a FIFO or device: those are refused).
 * Returns 0, or -1 with a message (strerror-style) in *err (caller frees). */
int mapfile_open(const char *path, struct mapped_file *out, char **err);
void mapfile_close(struct mapped_file *m);
/* A mapped file that shrinks while it is read ends the process: the
 * message "ttv: FILE: changed while being read", exit status 1, whatever
 * the number of files mapped and the thread that reads. hook (may be
 * NULL) runs first, in the signal handler: async-signal-safe calls only
 * (the viewer puts the terminal back). */
void mapfile_on_bus(void (*hook)(void));
/*
 * The files a load reads. Between mapfile_record_begin() and
 * mapfile_record_end(), every file mapped on any thread, and every file
 * given to mapfile_note() (read by other means, as libelf reads a
 * binary), is listed once by device and inode with its size and
 * modification time. One recording at a time (the loader's).
 */
struct trace_file;
void mapfile_record_begin(void);
/* The list (caller frees it and each path) and its length. */
struct trace_file *mapfile_record_end(size_t *n);
/* Ends the recording of a load that failed: what it read is of no use. */
void mapfile_record_drop(void);
/* Lists the regular file open at fd (named path) while recording. */
void mapfile_note(const char *path, int fd);

/* "a FIFO", "a directory"... for a stat mode, in messages. */
const char *mapfile_kind(unsigned mode);
/* Hints that [off, off+len) will be read in order. */
void mapfile_sequential(const struct mapped_file *m);
/* Drops the pages of [0, upto) from memory; they are read again if touched. */
void mapfile_release(const struct mapped_file *m, size_t upto);

#endif
