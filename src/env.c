/* ttv's own environment variables (see env.h). */
#include "config.h"

#include <stdlib.h>
#include <unistd.h>

#include "env.h"

static const char *const names[TTV_ENV_COUNT] = {
	[TTV_ENV_THREADS] = "TTV_THREADS",
	[TTV_ENV_ASYNC_SLICES] = "TTV_ASYNC_SLICES",
	[TTV_ENV_TEST_SENTINEL] = "TTV_TEST_SENTINEL",
	[TTV_ENV_CTF_CALLS] = "TTV_CTF_CALLS",
	[TTV_ENV_CTF_PIPE_MIN] = "TTV_CTF_PIPE_MIN",
	[TTV_ENV_CTF_BATCH] = "TTV_CTF_BATCH",
	[TTV_ENV_FXT_PIPE_MIN] = "TTV_FXT_PIPE_MIN",
	[TTV_ENV_FXT_READER_SHARE] = "TTV_FXT_READER_SHARE",
	[TTV_ENV_FXT_BUILDER_STACKS] = "TTV_FXT_BUILDER_STACKS",
	[TTV_ENV_TEST_SHRINK] = "TTV_TEST_SHRINK",
	[TTV_ENV_REGEX_SECONDS] = "TTV_REGEX_SECONDS",
	[TTV_ENV_SQL_MEMORY] = "TTV_SQL_MEMORY",
	[TTV_ENV_LIVE_TIMEOUT] = "TTV_LIVE_TIMEOUT",
	[TTV_ENV_CACHE_MAX] = "TTV_CACHE_MAX",
	[TTV_ENV_INDEX_CHECK] = "TTV_INDEX_CHECK",
	[TTV_ENV_NO_INDEX] = "TTV_NO_INDEX",
	[TTV_ENV_INDEX_STORE] = "TTV_INDEX_STORE",
	[TTV_ENV_FOLLOW_STATS] = "TTV_FOLLOW_STATS",
};

const char *
ttv_env_name(enum ttv_env e)
{
	return e < TTV_ENV_COUNT ? names[e] : "";
}

const char *
ttv_getenv(enum ttv_env e)
{
	return e < TTV_ENV_COUNT ? getenv(names[e]) : NULL;
}

int
ttv_cpus(void)
{
	const char *s = ttv_getenv(TTV_ENV_THREADS);
	if (s != NULL && *s != '\0') {
		long n = strtol(s, NULL, 10);
		if (n >= 1)
			return n > 1024 ? 1024 : (int)n;
	}
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : n > 1024 ? 1024 : (int)n;
}

int
ttv_env_mib(enum ttv_env e, uint64_t *mib)
{
	const char *s = ttv_getenv(e);
	if (s == NULL || *s == '\0')
		return 0;
	uint64_t n = 0;
	for (const char *p = s; *p != '\0'; p++) {
		if (*p < '0' || *p > '9' || n > ((uint64_t)1 << 40) / 10)
			return -1;
		n = n * 10 + (uint64_t)(*p - '0');
	}
	if (n > (uint64_t)1 << 40)
		return -1;
	*mib = n;
	return 1;
}
