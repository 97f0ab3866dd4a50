/*
 * out_dir.c -- the output directory a job submitted through the unix
 * socket names ("out_dir" of POST /v1/jobs, sent by `zkslot submit --out
 * DIR` of a user who is not the ledger's: docs/api.md, "Local users").
 *
 * gpud writes there as the daemons' user, so a caller may name only a
 * directory of its own: a local user (known by its uid: auth.c), never a
 * token or a network client (403); the directory its own uid's
 * (lstat: not a symlink, canonical as sent), not another's that the
 * daemons could write (a daemon-only directory, another user's job
 * directory: issue 46), and its partition directories, when there
 * already, directories and not links (submit_out_dir_check).  The CLI
 * made it and checked it as the caller before sending (cmd_job.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "apid.h"
#include "submit_core.h"

int apid_out_dir_check(const struct apid_req *q, const char *dir, size_t n,
                       struct apid_reply *r)
{
    struct stat st;
    char msg[SUBMIT_MSG_MAX];
    if (!q->peer[0] || q->who)
        return apid_error(r, 403, "forbidden", "out_dir: only a local user (the unix socket, "
                          "a loopback address) names an output directory (its own, on this "
                          "machine)");
    char *real = realpath(dir, NULL);
    int same = real && !strcmp(real, dir);
    free(real);
    if (lstat(dir, &st) != 0)
        return apid_error(r, 422, "bad_out_dir", "out_dir: %s: %s", dir, strerror(errno));
    if (!S_ISDIR(st.st_mode) || !same)
        return apid_error(r, 422, "bad_out_dir", "out_dir: %s: not a directory by its "
                          "canonical name (a link?): refused", dir);
    if (st.st_uid != q->peer_uid)
        return apid_error(r, 403, "forbidden", "out_dir: %s is uid %ld's, not %s's: a job's "
                          "output directory is its submitter's own", dir, (long)st.st_uid,
                          q->peer);
    if (submit_out_dir_check(dir, (uint32_t)n, msg, sizeof msg) < 0)
        return apid_error(r, 422, "bad_out_dir", "out_dir: %s", msg);
    return 0;
}
