/*
 * bpa.c -- synthd's .bpa stage (bpa.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bpa.h"
#include "zk/bellperson.h"
#include "zk/error.h"
#include "zk/slotfmt.h"
#include "zk/util.h"

/* The file's bytes into dst (at most cap): 0, or an error with out set. */
static int read_whole(const char *path, uint8_t *dst, uint64_t cap, uint64_t *len,
                      struct synthd_witness_out *out)
{
    struct stat st;
    int fd = zk_open_file_nofollow(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
        synthd_witness_error(out, "%s: %s%s", path, strerror(-fd),
                  fd == -ELOOP || fd == -ENOTDIR ? " (a symlink in its path?)" : "");
        out->permanent = fd != -EMFILE && fd != -ENFILE && fd != -ENOMEM;
        return fd;
    }
    int r = fstat(fd, &st) < 0 ? -errno : 0;
    if (!r && !S_ISREG(st.st_mode)) {
        synthd_witness_error(out, "%s: not a regular file: refused", path);
        out->permanent = 1;
        r = -EINVAL;
    } else if (!r && (uint64_t)st.st_size > cap) {
        uint64_t mib = ((uint64_t)st.st_size + ZK_SLOTFMT_ALIGN + (1u << 20) - 1) >> 20;
        synthd_witness_error(out, "%s: %llu bytes, a slot holds %llu: recreate the pool with "
                             "--slot-size %lluM or more", path, (unsigned long long)st.st_size,
                             (unsigned long long)cap, (unsigned long long)mib);
        out->permanent = 1;
        r = ZK_ELENGTH;
    }
    uint64_t got = 0;
    while (!r && got < (uint64_t)st.st_size) {
        ssize_t n = pread(fd, dst + got, (size_t)((uint64_t)st.st_size - got), (off_t)got);
        if (n <= 0) {
            r = n < 0 ? -errno : ZK_ETRUNCATED;
            synthd_witness_error(out, "%s: reading: %s", path,
                      n < 0 ? strerror(errno) : "it shrank while read");
        }
        got += n > 0 ? (uint64_t)n : 0;
    }
    close(fd);
    *len = got;
    return r;
}

int synthd_bpa_check(const uint8_t *bpa, uint64_t len, const char *what,
                     const struct zk_ledger_key *lk, struct synthd_witness_out *out)
{
    struct zk_diag d = { "" };
    zk_bp_assignment *as = NULL;
    int r = zk_bp_assignment_parse(bpa, (size_t)len, what, &as, &d);
    if (r) {
        synthd_witness_error(out, "%s", d.msg);
        out->permanent = r != -ENOMEM;
        return r;
    }
    r = zk_bp_assignment_fits(as, lk->n_public + 1, lk->n_vars - lk->n_public - 1,
                              lk->domain_size, what, &d);
    zk_bp_assignment_free(as);
    if (r) {
        synthd_witness_error(out, "%s (key %s)", d.msg, lk->name);
        out->permanent = 1;
        return r;
    }
    return 0;
}

int synthd_bpa_fill(const char *path, const struct zk_ledger_key *lk, uint8_t *dst, uint64_t cap,
                    uint64_t *len, struct synthd_witness_out *out)
{
    memset(out, 0, sizeof *out);
    out->witness_s = -1;
    int r = read_whole(path, dst, cap, len, out);
    return r ? r : synthd_bpa_check(dst, *len, path, lk, out);
}
