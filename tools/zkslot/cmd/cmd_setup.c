/*
 * cmd_setup.c -- `zkslot setup CIRCUIT.r1cs KEY.zkey [--curve C] [--threads T]`:
 * an INSECURE Groth16 key from random toxic waste, for tests and benchmarks.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "zk/binfile.h"
#include "zk/error.h"
#include "zk/setup.h"
#include "zk/util.h"

struct setup_progress {
    double t0;
};

static void setup_progress(void *ctx, const char *stage)
{
    struct setup_progress *p = ctx;
    fprintf(stderr, "setup: [%6.2f s] %s\n", zk_now_s() - p->t0, stage);
}

/* "bn254", "bn128", "bls12-381", "bls12381" -> curve; -1 if unknown. */
static int parse_curve(const char *s)
{
    if (!strcmp(s, "bn254") || !strcmp(s, "bn128") || !strcmp(s, "altbn128"))
        return ZK_CURVE_BN254;
    if (!strcmp(s, "bls12-381") || !strcmp(s, "bls12381"))
        return ZK_CURVE_BLS12_381;
    return -1;
}

int cmd_setup(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "curve", required_argument, NULL, 'c' },
        { "threads", required_argument, NULL, 't' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    static const char usage[] =
        "usage: zkslot setup CIRCUIT.r1cs KEY.zkey [--curve bn254|bls12-381] [--threads T]\n";
    int want_curve = -1, c;
    unsigned threads = 0;

    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case 'c':
            want_curve = parse_curve(optarg);
            if (want_curve < 0) {
                fprintf(stderr, "zkslot setup: unknown curve '%s' (bn254 or bls12-381)\n", optarg);
                return 2;
            }
            break;
        case 't':
            threads = (unsigned)strtoul(optarg, NULL, 10);
            break;
        case 'h':
            fputs(usage, stdout);
            return 0;
        default:
            fputs(usage, stderr);
            return 2;
        }
    }
    if (argc - optind != 2) {
        fputs(usage, stderr);
        return 2;
    }
    fprintf(stderr, "setup: WARNING: INSECURE key -- its toxic waste was drawn on this machine; "
                    "use it only for tests and benchmarks\n");
    struct setup_progress prog = { zk_now_s() };
    struct zk_setup_opts opts = { .nthreads = threads, .progress = setup_progress,
                                  .progress_ctx = &prog };
    struct zk_diag diag = { "" };
    int r = zk_setup_zkey(argv[optind], argv[optind + 1], want_curve, &opts, &diag);
    if (r != 0) {
        fprintf(stderr, "zkslot setup: %s\n", diag.msg[0] ? diag.msg : zk_strerror(r));
        return 2;
    }
    fprintf(stderr, "setup: [%6.2f s] wrote %s\n", zk_now_s() - prog.t0, argv[optind + 1]);
    return 0;
}
