/*
 * fuzz_r1cs.c -- libFuzzer target for the .r1cs reader: open from memory,
 * walk every constraint through a callback that touches every term; a
 * small circuit that reads (at most 32 constraints and 64 wires) then goes
 * through `zkslot setup` (zk_setup_zkey, reproducible waste, one thread:
 * the file read again through /proc/self/fd, the key written to a private
 * tmpfs directory), and the key it writes must open.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_util.h"
#include "zk/r1cs.h"
#include "zk/setup.h"
#include "zk/zkey.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile uint64_t sink;

static int touch(void *ctx, uint32_t index, const struct zk_r1cs_lc lc[3])
{
    uint64_t *acc = ctx;
    for (int m = 0; m < 3; m++)
        for (uint32_t i = 0; i < lc[m].n; i++)
            *acc += lc[m].t[i].wire + lc[m].t[i].coef[3];
    *acc += index;
    return 0;
}

/* zkslot setup on the bytes; a key it writes must open */
static void fuzz_setup(const uint8_t *data, size_t size)
{
    static const uint8_t seed[32] = { 1 };
    const struct zk_setup_opts o = { .nthreads = 1, .seed = seed };
    const char *dir = fuzz_private_dir();
    char in[64], out[128];
    struct zk_diag d;
    int fd = memfd_create("fuzz.r1cs", MFD_CLOEXEC);
    if (!dir || fd < 0 || write(fd, data, size) != (ssize_t)size)
        abort();
    snprintf(in, sizeof in, "/proc/self/fd/%d", fd);
    snprintf(out, sizeof out, "%s/setup.zkey", dir);
    if (zk_setup_zkey(in, out, -1, &o, &d) == 0) {
        struct zk_zkey z;
        if (zk_zkey_open(&z, out, &d) != 0) {
            fprintf(stderr, "fuzz_r1cs: the key setup wrote does not open: %s\n", d.msg);
            abort();
        }
        zk_zkey_done(&z);
        unlink(out);
    }
    close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct zk_r1cs r;
    struct zk_diag d;
    if (zk_r1cs_open_mem(&r, data, size, "fuzz.r1cs", &d) != 0)
        return 0;
    uint64_t acc = 0, terms[3];
    int r_walk = zk_r1cs_for_each_constraint(&r, touch, &acc, terms, &d);
    int small = r.hdr.n_constraints <= 32 && r.hdr.n_wires <= 64;
    zk_r1cs_done(&r);
    sink = acc;
    if (r_walk == 0 && small)
        fuzz_setup(data, size);
    return 0;
}
