/*
 * bp_producer.c -- a libzkslot producer of bellperson partitions for
 * test_bp_pool.sh: `bp_producer KEY [--bad] A.bpa...` creates a job of
 * KEY with one partition per file and publishes each file's assignment
 * through zkslot_part_publish_bp (zkslot.h), from its own buffers: the
 * file is read and split into the struct's fields as docs/bellperson.md
 * lays a .bpa out.  --bad: the first aux value of every partition is set
 * to r (not below it), which the library must refuse.  Prints the job id;
 * exit 0 when every publish did what it should (refused with --bad), 1
 * otherwise, 2 on a usage or file error.  The ledger and pool are the
 * environment's (ZKSLOT_STATE_DIR, ZKSLOT_POOL).
 * `bp_producer --result JOB INDEX` prints what zkslot_result hands out for
 * that partition (its proof's hex digits), exit 1 when it refuses.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zkslot.h"

/* r of BLS12-381's scalar field, little-endian bytes */
static const uint8_t R_LE[32] = {
    0x01, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xfe, 0x5b, 0xfe, 0xff, 0x02, 0xa4, 0xbd, 0x53,
    0x05, 0xd8, 0xa1, 0x09, 0x08, 0xd8, 0x39, 0x33, 0x48, 0x7d, 0x9d, 0x29, 0x53, 0xa7, 0xed, 0x73,
};

static uint8_t *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    uint8_t *b = NULL;
    long n;
    if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 40 || fseek(f, 0, SEEK_SET) ||
        !(b = malloc((size_t)n)) || fread(b, 1, (size_t)n, f) != (size_t)n) {
        fprintf(stderr, "bp_producer: %s: cannot read it\n", path);
        free(b);
        b = NULL;
    }
    if (f)
        fclose(f);
    *len = b ? (size_t)n : 0;
    return b;
}

/* The assignment's fields pointing into the file's bytes b. */
static void split(uint8_t *b, struct zkslot_bp_assignment *as)
{
    memcpy(&as->n_inputs, b + 16, 8);
    memcpy(&as->n_aux, b + 24, 8);
    memcpy(&as->n_constraints, b + 32, 8);
    uint8_t *q = b + 40;
    as->inputs = q;
    as->aux = q += 32 * as->n_inputs;
    as->a = q += 32 * as->n_aux;
    as->b = q += 32 * as->n_constraints;
    as->c = q += 32 * as->n_constraints;
    q += 32 * as->n_constraints;
    as->a_aux = (const uint64_t *)q;
    as->b_input = as->a_aux + (as->n_aux + 63) / 64;
    as->b_aux = as->b_input + (as->n_inputs + 63) / 64;
}

int main(int argc, char **argv)
{
    char msg[512];
    zkslot *z = NULL;
    zkslot_producer *p = NULL;
    int64_t job = 0;
    int bad = argc > 2 && !strcmp(argv[2], "--bad"), first = bad ? 3 : 2, fails = 0;
    if (argc == 4 && !strcmp(argv[1], "--result")) {
        char *proof = NULL, *pub = NULL;
        int r = zkslot_open(NULL, NULL, &z, msg, sizeof msg);
        if (r == 0)
            r = zkslot_result(z, strtoll(argv[2], NULL, 10), (uint32_t)atoi(argv[3]), &proof,
                              &pub, msg, sizeof msg);
        if (r == 0)
            fputs(proof, stdout);
        else
            fprintf(stderr, "bp_producer: %s\n", msg);
        zkslot_free(proof);
        zkslot_free(pub);
        zkslot_close(z);
        return r ? 1 : 0;
    }
    if (argc <= first) {
        fprintf(stderr, "usage: bp_producer KEY [--bad] A.bpa...\n");
        return 2;
    }
    if (zkslot_open(NULL, NULL, &z, msg, sizeof msg) < 0 ||
        zkslot_producer_open(z, NULL, &p, msg, sizeof msg) < 0 ||
        zkslot_job_create(p, argv[1], (uint32_t)(argc - first), NULL, &job, msg, sizeof msg) < 0) {
        fprintf(stderr, "bp_producer: %s\n", msg);
        return 2;
    }
    printf("%" PRId64 "\n", job);
    fflush(stdout);
    for (int i = first; i < argc; i++) {
        size_t len;
        uint8_t *b = read_file(argv[i], &len);
        struct zkslot_bp_assignment as;
        uint32_t index = UINT32_MAX;
        if (!b)
            return 2;
        split(b, &as);
        if (bad)
            memcpy((uint8_t *)as.aux, R_LE, 32);
        int r = zkslot_part_publish_bp(p, job, 10000, &as, &index, msg, sizeof msg);
        if (bad ? r == 0 : r < 0) {
            fprintf(stderr, "bp_producer: %s: %s\n", argv[i], r ? msg : "published with aux 0 = r");
            fails++;
        } else {
            fprintf(stderr, "bp_producer: %s: %s\n", argv[i],
                    r ? msg : "published");
        }
        free(b);
    }
    zkslot_producer_close(p);
    zkslot_close(z);
    return fails ? 1 : 0;
}
