/*
 * main.c -- `zkslot`, the command-line front end: dispatches to the
 * subcommands of cmd.h.
 */
#include <stdio.h>
#include <string.h>

#include "cmd.h"

#pragma weak cmd_bench
#pragma weak cmd_prove
#pragma weak cmd_verify
#pragma weak cmd_export_vk
#pragma weak cmd_setup
#pragma weak cmd_inspect
#pragma weak cmd_pool
#pragma weak cmd_key
#pragma weak cmd_submit
#pragma weak cmd_status
#pragma weak cmd_wait
#pragma weak cmd_result
#pragma weak cmd_cancel
#pragma weak cmd_plan
#pragma weak cmd_top
#pragma weak cmd_metrics

struct command {
    const char *name;
    int (*fn)(int, char **);
    const char *usage;
};

static const struct command commands[] = {
    { "prove", cmd_prove, "KEY.zkey WITNESS.wtns PROOF.json PUBLIC.json [--threads T]" },
    { "verify", cmd_verify, "VK.json PUBLIC.json PROOF.json" },
    { "export-vk", cmd_export_vk, "KEY.zkey VK.json" },
    { "setup", cmd_setup, "CIRCUIT.r1cs KEY.zkey [--curve bn254|bls12-381]" },
    { "inspect", cmd_inspect, "FILE" },
    { "bench", cmd_bench, "field|ntt|msm|prove|pool|pipeline|inplace ..." },
    { "pool", cmd_pool, "create|ensure|status|check|reap|destroy ..." },
    { "key", cmd_key, "add NAME FILE | list" },
    { "submit", cmd_submit, "--key NAME [--out DIR] WITNESS.wtns..." },
    { "status", cmd_status, "[JOB] [--json]" },
    { "wait", cmd_wait, "JOB [--timeout S]" },
    { "result", cmd_result, "JOB" },
    { "cancel", cmd_cancel, "JOB" },
    { "plan", cmd_plan, "--key KEY.zkey | --partition-size SIZE [--ram SIZE] ..." },
    { "metrics", cmd_metrics,
      "[--textfile PATH [--interval S] | --listen ADDR:PORT [--allow-remote]]" },
    { "top", cmd_top, "[--once] [--interval S]" },
};

static void usage(FILE *out)
{
    fprintf(out, "usage: zkslot COMMAND [ARGS]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        if (commands[i].fn)
            fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].usage);
    }
}

int main(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        if (commands[i].fn && !strcmp(argv[1], commands[i].name))
            return commands[i].fn(argc - 1, argv + 1);
    }
    fprintf(stderr, "zkslot: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return 2;
}
