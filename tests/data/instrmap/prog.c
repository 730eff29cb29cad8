/*
 * A small C program for the instrumentation-map tests: plain functions, a
 * static one, recursion, logged arguments, a custom and a typed event (so
 * the map has sleds of kinds 0, 1, 3, 4 and 5; tail-call sleds, kind 2,
 * only come with optimisation) and an uninstrumented function.
 * It is never run by the tests; only its xray_instr_map is read.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * The program is linked without the XRay runtime (-fno-xray-link-deps) to
 * stay small; event sleds call these, so they are stubbed here.
 */
__attribute__((xray_never_instrument)) void
__xray_CustomEvent(void *event, size_t size)
{
}

__attribute__((xray_never_instrument)) void
__xray_TypedEvent(size_t type, const void *event, size_t size)
{
}

static int
square(int x)
{
	return x * x;
}

int
fact(int n)
{
	return n <= 1 ? 1 : n * fact(n - 1);
}

__attribute__((xray_always_instrument, xray_log_args(1))) long
scaled(long v)
{
	return v * 3 + square((int)v);
}

__attribute__((xray_never_instrument)) int
hidden(int x)
{
	return x + 1;
}

void
announce(int step)
{
	static const char msg[] = "step";
	uint64_t payload = (uint64_t)step;

	__xray_customevent(msg, sizeof msg - 1);
#ifndef NO_TYPED_EVENT	/* llvm-xray 14 refuses maps with typed-event sleds */
	__xray_typedevent(7, (const char *)&payload, sizeof payload);
#else
	(void)payload;
#endif
}

int
main(int argc, char **argv)
{
	int i, sum = 0;

	for (i = 0; i < argc + 3; i++) {
		announce(i);
		sum += fact(i) + (int)scaled(i) + hidden(i);
	}
	printf("%d\n", sum);
	return 0;
}
