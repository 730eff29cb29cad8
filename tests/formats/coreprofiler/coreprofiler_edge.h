/*
 * A CoreProfiler log with what the fixtures do not all hold, for the
 * tests of its reader's state kept across reads (coreprofiler_grow.c,
 * coreprofiler_state.c): a thread moved to an OS thread another had (the
 * first no longer found by it), a function given a second CLR id (found
 * by both), a managed thread whose id is all ones, pauses, GCs and JIT
 * intervals left open, an allocation, CPU and heap counters, unknown and
 * damaged lines, a thread destroyed.
 */
#ifndef TTV_TESTS_COREPROFILER_EDGE_H
#define TTV_TESTS_COREPROFILER_EDGE_H

static const char cp_edge_log[] =
    "prf stm 2018-06-25 07:24:28.049 +03:00\n"
    "prf cfg CollectionMethod Sampling\n"
    "prf cfg CpuTraceTimeoutMs 20\n"
    "apd crf 0x1 0x4d2 0x0 \"app\"\n"
    "thr crt 0xB3F00000 0x00000000\n"
    "thr aos 0x00000000 100\n"
    "thr crt 0xB3F00100 0x00000001\n"
    "thr aos 0x00000001 100\n"
    "thr crt 0xB3F00200 0xFFFFFFFFFFFFFFFF\n"
    "cls ldf 0xC0 0x00000000 0x0 0x0 0x0\n"
    "cls nam 0x00000000 \"System.String\"\n"
    "fun nam 0x00000000 \"A::Main\" \"void\" \"()\"\n"
    "fun inf 0x00000001 0xB4000000 0x0 0x0 0x06000001\n"
    "fun inf 0x00000001 0xB4000100 0x0 0x0 0x06000001\n"
    "fun nam 0x00000001 \"B::Work\" \"void\" \"()\"\n"
    "sam str 0x00000000 10 1 0:0 0x0 0x1\n"
    "jit cms 100 11 0xB4000000\n"
    "sam str 0x00000001 11 1 0:0 0x0\n"
    "thr aos 0x00000001 101\n"
    "jit cms 100 12 0xB4000100\n"
    "jit cmf 100 13 0xB4000100 0x0\n"
    "sam str 0xFFFFFFFFFFFFFFFF 12 2 0:0 0x1\n"
    "prf tps 14\n"
    "sam mem 0x00000000 14 0x00000000:2:64 0x00000007:1:16\n"
    "gch gcs 101 15 induced tftf\n"
    "xyz abc 1\n"
    "sam str 0x00000000 16 1 1:2 0x2:0x10\n"
    "sam str 0x00000001 oops\n"
    "prc cpu 16 400\n"
    "thr cpu 0x00000000 16 300\n"
    "prf trs 18\n"
    "sam str 0x00000001 19 1 1:1 0x0\n"
    "gch gen 19 gen0:100:200 gen1:50:60\n"
    "gch gcf 101 20\n"
    "gch alt 20 0x00000000:5:320\n"
    "jit cmf 100 21 0xB4000000 0x0\n"
    "qqq zzz\n"
    "sam str 0x00000000 22 1 0:2\n"
    "thr dst 0xB3F00100 0x00000001\n"
    "sam str 0xFFFFFFFFFFFFFFFF 23 1 1:1 0x0\n"
    "prf tps 24\n"
    "sam str 0x00000000 26 1 0:0 0x1\n";

#endif
