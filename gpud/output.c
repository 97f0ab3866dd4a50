/*
 * output.c -- a partition's proof.json and public.json.  The partition
 * directory (made 02770 by `zkslot submit`, writable by the submitters'
 * group) is opened without following a link in any component of its path
 * (zk_open_dir_nofollow) and written through its fd
 * (zk_write_atomic_at: a temporary name, then rename), so neither a
 * symlink in its place nor one at a temporary name makes gpud write
 * anywhere else; temporary files a killed gpud left are removed.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpud.h"
#include "zk/error.h"
#include "zk/util.h"

/* Removes temporary files that a killed gpud left in the directory dfd
 * (name.tmp.PID of a process that is gone); unlinkat removes a planted
 * symlink itself, never its target. */
static void remove_stale_tmp(int dfd, const char *dir)
{
    int fd = dup(dfd);
    DIR *dp = fd < 0 ? NULL : fdopendir(fd);
    struct dirent *e;
    if (!dp) {
        if (fd >= 0)
            close(fd);
        return;
    }
    while ((e = readdir(dp))) {
        const char *t = strstr(e->d_name, ".tmp.");
        if (!t)
            continue;
        int pid = atoi(t + 5);
        if (pid > 0 && pid != (int)getpid() && kill(pid, 0) && errno == ESRCH &&
            !unlinkat(dfd, e->d_name, 0))
            zkd_log(ZKD_INFO, "removed %s/%s, left by a gpud that died", dir, e->d_name);
    }
    closedir(dp);
}

int proof_texts(const struct item *it, const struct zk_groth16_proof *proof,
                struct zk_ledger_result *ret)
{
    ret->proof = zk_groth16_proof_to_json(proof);
    ret->pub = zk_groth16_public_to_json(it->pub, zk_groth16_key_header(it->key->k)->n_public);
    if (!ret->proof || !ret->pub) {
        zk_ledger_result_free(ret);
        return -ENOMEM;
    }
    ret->proof_len = strlen(ret->proof);
    ret->pub_len = strlen(ret->pub);
    return 0;
}

/*
 * Writes out_dir/<index>/{public,proof}.json; *dup = a proof was there.
 * The partition directory (made 02770 by `zkslot submit`, writable by the
 * submitters' group) is opened without following a link in any component
 * and written through its fd, so neither a symlink in its path nor one at
 * a temporary name makes gpud write anywhere else.
 */
int write_proof(const struct zk_ledger_job *j, const struct item *it,
                const struct zk_ledger_result *res, int *dup, struct zk_diag *diag)
{
    char dir[PATH_MAX + 16];
    int r, dfd;

    snprintf(dir, sizeof dir, "%s/%u", j->out_dir, it->p.index);
    /* normally made by submit; 0770 (less the umask) when it is not; no
     * link followed in any component (a submitter's directory swapped
     * for a link to one of ours is refused) */
    if ((dfd = zk_open_dir_nofollow(dir, 0770)) < 0) {
        r = dfd;
        return zk_diag_set(diag, dir, r, "cannot open the output directory: %s%s",
                           zk_strerror(r),
                           r == -ELOOP || r == -ENOTDIR ? " (a symlink in its path?)" : "");
    }
    remove_stale_tmp(dfd, dir);
    if ((r = zk_write_atomic_at(dfd, "public.json", res->pub, res->pub_len, 0644, NULL)))
        zk_diag_set(diag, dir, r, "cannot write public.json there: %s", zk_strerror(r));
    else if (it->bp && (r = zk_write_atomic_at(dfd, "proof.bin", it->bp_proof,
                                               sizeof it->bp_proof, 0644, dup)))
        zk_diag_set(diag, dir, r, "cannot write proof.bin there: %s", zk_strerror(r));
    else if (!it->bp &&
             (r = zk_write_atomic_at(dfd, "proof.json", res->proof, res->proof_len, 0644, dup)))
        zk_diag_set(diag, dir, r, "cannot write proof.json there: %s", zk_strerror(r));
    close(dfd);
    return r;
}
