/*
 * main.c -- `zkslot`, the command-line front end: dispatches to the
 * subcommands of cmd.h; `zkslot help [COMMAND]`, `--help`/`-h` (on
 * stdout, exit 0) and `--version`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"


struct command {
    const char *name;
    int (*fn)(int, char **);
    const char *usage;
    int own_help;                  /* takes --help itself (stdout, exit 0) */
};

static const struct command commands[] = {
    { "prove", cmd_prove, "KEY.zkey WITNESS.wtns PROOF.json PUBLIC.json [--threads T]", 0 },
    { "verify", cmd_verify, "VK.json PUBLIC.json PROOF.json", 0 },
    { "export-vk", cmd_export_vk, "KEY.zkey VK.json", 0 },
    { "setup", cmd_setup, "CIRCUIT.r1cs KEY.zkey [--curve bn254|bls12-381]", 1 },
    { "inspect", cmd_inspect, "FILE", 0 },
    { "bench", cmd_bench, "field|ntt|msm|prove|pool|pipeline|inplace|ledger|api ...", 0 },
    { "pool", cmd_pool, "create|ensure|status|check|reap|destroy ...", 0 },
    { "key", cmd_key,
      "add NAME FILE [--vk FILE.vk] | list | show NAME | load NAME | status | unload NAME", 0 },
    { "submit", cmd_submit,
      "--key NAME [--out DIR] [--priority CLASS] [--deadline D [--force]] [--request-id ID] "
      "WITNESS.wtns... | --bpa A.bpa...", 0 },
    { "status", cmd_status, "[JOB] [--json]", 0 },
    { "wait", cmd_wait, "JOB [--timeout S]", 0 },
    { "result", cmd_result, "JOB [--out DIR | --out FILE (a bellperson job)]", 0 },
    { "cancel", cmd_cancel, "JOB", 0 },
    { "reprioritize", cmd_reprioritize, "JOB low|normal|high|critical", 0 },
    { "plan", cmd_plan, "--key KEY.zkey | --partition-size SIZE [--ram SIZE] ...", 1 },
    { "metrics", cmd_metrics,
      "[--textfile PATH [--interval S] | --listen ADDR:PORT [--allow-remote]]", 0 },
    { "top", cmd_top, "[--once] [--interval S]", 0 },
    { "token", cmd_token, "add NAME --keys KEYS|* [--cancel-any] | list | revoke NAME", 0 },
    { "seal-key", cmd_seal_key, "[--state-dir DIR]", 0 },
    { "bp", cmd_bp, "inspect FILE | prove KEY.params ASSIGN.bpa PROOF | verify VK ASSIGN.bpa PROOF | "
      "bench KEY.params ASSIGN.bpa", 0 },
};

static void usage(FILE *out)
{
    fprintf(out, "usage: zkslot COMMAND [ARGS]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(out, "  %-12s %s\n", commands[i].name, commands[i].usage);
    fprintf(out, "\n  zkslot help COMMAND, zkslot COMMAND --help: its usage; zkslot --version\n"
            "  zkslot --server URL [--ca-file FILE] COMMAND: submit, status, wait, result,\n"
            "    cancel, key list|show through zkslot-apid at URL (http://HOST[:PORT],\n"
            "    https://HOST[:PORT] or unix:/PATH; env ZKSLOT_SERVER, ZKSLOT_TOKEN);\n"
            "    --ca-file (env ZKSLOT_CA_FILE): the CAs an https server's certificate\n"
            "    must chain to, instead of the system's trust store\n");
}

/* `zkslot CMD --help` or `-h`: right after the command.  Deeper ones
 * (`zkslot bench field --help`) are the subcommand's to answer. */
static int help_asked(int argc, char **argv)
{
    return argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"));
}

int cmd_help;

/*
 * `zkslot CMD --help`, `zkslot help CMD`: the command's own usage, on
 * stdout, exit 0.  A command that takes --help itself (setup, plan) gets
 * it; the others are run with no arguments and cmd_help set: each prints
 * its usage when its arguments are missing (the few that would run
 * without arguments check cmd_help first), to stderr, which is stdout
 * here.
 */
static int command_help(const struct command *c)
{
    char *av[] = { (char *)c->name, (char *)"--help", NULL };
    if (c->own_help)
        return c->fn(2, av);
    av[1] = NULL;
    fflush(stdout);
    if (dup2(STDOUT_FILENO, STDERR_FILENO) < 0)
        return 2;
    cmd_help = 1;
    int rc = c->fn(1, av);
    return rc == 2 ? 0 : rc;
}

static const struct command *find_command(const char *name)
{
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        if (!strcmp(name, commands[i].name))
            return &commands[i];
    }
    return NULL;
}

int main(int argc, char **argv)
{
    /* zkslot --server URL [--ca-file FILE] CMD ...: the job commands go to
     * zkslot-apid (remote.h); each option is its environment variable */
    while (argc > 2 && (!strcmp(argv[1], "--server") || !strcmp(argv[1], "--ca-file"))) {
        setenv(argv[1][2] == 's' ? "ZKSLOT_SERVER" : "ZKSLOT_CA_FILE", argv[2], 1);
        argv[2] = argv[0];
        argc -= 2;
        argv += 2;
    }
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
        (!strcmp(argv[1], "help") && argc == 2)) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
        printf("zkslot %s\n", ZK_VERSION);
        return 0;
    }
    if (!strcmp(argv[1], "help")) {
        const struct command *c = find_command(argv[2]);
        if (!c) {
            fprintf(stderr, "zkslot help: unknown command '%s'\n", argv[2]);
            usage(stderr);
            return 2;
        }
        return command_help(c);
    }
    const struct command *c = find_command(argv[1]);
    if (!c) {
        fprintf(stderr, "zkslot: unknown command '%s'\n", argv[1]);
        usage(stderr);
        return 2;
    }
    if (help_asked(argc - 1, argv + 1))
        return command_help(c);
    return c->fn(argc - 1, argv + 1);
}
