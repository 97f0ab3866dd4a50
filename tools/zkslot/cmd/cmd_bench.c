/*
 * cmd_bench.c -- `zkslot bench WHAT ...`: dispatches to the benchmark of one
 * module (bench_<what>.c).  Benchmarks print medians over repeats and a
 * throughput figure, and `--json` for machines.
 */
#include <stdio.h>
#include <string.h>

#include "cmd.h"

#pragma weak cmd_bench_field
#pragma weak cmd_bench_ntt
#pragma weak cmd_bench_msm
#pragma weak cmd_bench_prove
#pragma weak cmd_bench_pool
#pragma weak cmd_bench_pipeline
#pragma weak cmd_bench_inplace
#pragma weak cmd_bench_ledger
#pragma weak cmd_bench_api

int cmd_bench(int argc, char **argv)
{
    static const struct {
        const char *name;
        int (*fn)(int, char **);
    } benches[] = {
        { "field", cmd_bench_field }, { "ntt", cmd_bench_ntt },
        { "msm", cmd_bench_msm },     { "prove", cmd_bench_prove },
        { "pool", cmd_bench_pool },   { "pipeline", cmd_bench_pipeline },
        { "inplace", cmd_bench_inplace }, { "ledger", cmd_bench_ledger },
        { "api", cmd_bench_api },
    };
    if (argc >= 2) {
        for (size_t i = 0; i < sizeof benches / sizeof benches[0]; i++) {
            if (benches[i].fn && !strcmp(argv[1], benches[i].name))
                return benches[i].fn(argc - 1, argv + 1);
        }
    }
    fprintf(stderr, "usage: zkslot bench WHAT [OPTIONS]\n  WHAT:");
    for (size_t i = 0; i < sizeof benches / sizeof benches[0]; i++) {
        if (benches[i].fn)
            fprintf(stderr, " %s", benches[i].name);
    }
    fprintf(stderr, "\n");
    return 2;
}
