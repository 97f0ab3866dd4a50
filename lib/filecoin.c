/*
 * filecoin.c -- zkslot_submit_filecoin (zkslot.h): a storage provider's
 * input (a C1 output, the vanilla proofs of a PoSt or of a SnapDeals
 * update: docs/filecoin.md) split by the Filecoin synthesizer into one
 * part file per partition, then submitted as those parts' inputs, as
 * `zkslot submit --filecoin` does.  The synthesizer runs as the caller (a
 * library runs in the caller's process), found as the CLI finds it
 * ($ZKSLOT_FIL_SYNTH, else zkslot-fil-synth in /usr/local/bin:/usr/bin:
 * /bin), never through a shell; the parts live in a private directory
 * under $TMPDIR (or /tmp) until the submit has read them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "filecoin_cli.h"
#include "zk/error.h"
#include "zkslot_internal.h"

ZKSLOT_EXPORT int zkslot_submit_filecoin(zkslot *z, const char *kind, const char *file,
                                         const char *key, const struct zkslot_submit_opts *o,
                                         int64_t *ret_job, int *ret_existing, char *msg,
                                         size_t n)
{
    char prog[PATH_MAX], dir[PATH_MAX], name[96], why[FIL_MSG_MAX], **parts = NULL;
    int np = 0, r;
    if (!z || !kind || !file || !file[0] || !ret_job)
        return zkslot_say(msg, n, ZK_EBADPARAMS, "zkslot_submit_filecoin: no handle, kind, "
                          "file or job id");
    if (!fil_kind_valid(kind))
        return zkslot_say(msg, n, ZK_EBADPARAMS, "kind '%.32s': not porep, winning, window or "
                          "snap; nothing submitted", kind);
    if (fil_synth_find(NULL, prog, sizeof prog, why, sizeof why) < 0)
        return zkslot_say(msg, n, -ENOENT, "%s; nothing submitted", why);
    r = fil_split_private(prog, kind, file, dir, sizeof dir, &parts, &np, name, sizeof name,
                          why, sizeof why);
    if (r)
        r = zkslot_say(msg, n, r, "%s%s", why, dir[0] ? "; nothing submitted" : "");
    else
        r = zkslot_submit(z, key && *key ? key : name, (const char *const *)parts,
                          (unsigned)np, 1, o, ret_job, ret_existing, msg, n);
    fil_split_remove(dir, parts, np);
    return r;
}
