/* What an index must match besides its trace's files (see index.h). */
#include "config.h"

#include <string.h>
#include <sys/stat.h>

#include "index.h"
#include "index_hash.h"

uint64_t
index_program_id(void)
{
	static const char version[] = PACKAGE_VERSION;
	uint64_t h = index_hash(version, sizeof version - 1, 0);
	struct stat st;
	/* The executable's size and time: every build is another program,
	 * whatever its version says. */
	if (stat("/proc/self/exe", &st) == 0) {
		int64_t id[3] = { (int64_t)st.st_size, (int64_t)st.st_mtim.tv_sec,
		    (int64_t)st.st_mtim.tv_nsec };
		h = index_hash(id, sizeof id, h);
	}
	return h;
}

/* One option: whether it was given and what it said. */
static uint64_t
option(uint64_t h, const char *s)
{
	char given = s != NULL;
	h = index_hash(&given, 1, h);
	return s != NULL ? index_hash(s, strlen(s) + 1, h) : h;
}

uint64_t
index_options_hash(const char *format, const char *instr_map,
    const char *sysroot)
{
	uint64_t h = option(0, format);
	h = option(h, instr_map);
	return option(h, sysroot);
}
