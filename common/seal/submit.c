/*
 * submit.c -- whether and to which key a submit seals its inputs
 * (zk/seal.h: zk_seal_for_submit, zk_seal_submit_cb).
 */
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "zk/seal.h"

int zk_seal_for_submit(const char *state_dir, int shared, struct zk_seal_pub *ret,
                       struct zk_diag *diag)
{
    struct stat dir;
    int r = zk_seal_pub_load(state_dir, ret, diag);
    if (r != -ENOENT)
        return r < 0 ? r : 1;
    if (shared)   /* a client of a farm without its key: the roles guard them */
        return 0;
    if (stat(state_dir, &dir) == 0 && (geteuid() == 0 || geteuid() == dir.st_uid)) {
        if ((r = zk_seal_make(state_dir, diag)) < 0)
            return r;
        r = zk_seal_pub_load(state_dir, ret, diag);
        return r < 0 ? r : 1;
    }
    return zk_diag_set(diag, state_dir, -ENOENT,
                       "no %s, the daemons' key that inputs are sealed to: start "
                       "zkslot-synthd once (it makes the key pair)", ZK_SEAL_PUB);
}

int zk_seal_submit_cb(void *ctx, int64_t job_id, uint32_t idx, const char *in, size_t len,
                      char **ret, size_t *ret_len)
{
    return zk_seal((const struct zk_seal_pub *)ctx, job_id, idx, in, len, ret, ret_len);
}
