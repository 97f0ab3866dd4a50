/*
 * rules.c -- the ledger's rules that do not depend on the backend
 * (ledger_internal.h): what a key record must hold, the state a job
 * derives from its partitions, and the slot header's word checked against
 * the ledger's before gpud proves it; the scheduling helpers both backends
 * use (submit options, medians).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ledger/ledger_internal.h"
#include "zk/error.h"
#include "zk/witgen.h"

int ledger_key_check(const char *name, const struct zk_ledger_key *k, struct zk_diag *diag)
{
    size_t nl = strnlen(k->name, sizeof k->name);
    if (nl == 0 || nl >= sizeof k->name || !memchr(k->path, 0, sizeof k->path) ||
        !memchr(k->curve, 0, sizeof k->curve) || !memchr(k->hash, 0, sizeof k->hash) ||
        !memchr(k->witgen, 0, sizeof k->witgen) ||
        !memchr(k->witgen_hash, 0, sizeof k->witgen_hash) || k->witgen_kind < 0 ||
        k->witgen_kind > ZK_WITGEN_CMD || k->priority < 0 || k->priority >= ZK_PRIO_COUNT ||
        k->format < 0 || k->format >= ZK_KEY_FORMAT_COUNT)
        return zk_diag_set(diag, name, -EINVAL, "bad key record");
    return 0;
}

int ledger_vet_sizes(int64_t input, int64_t witness, int64_t out_dir, char *why, size_t n)
{
    if (input > (int64_t)ZK_LEDGER_BLOB_MAX)
        snprintf(why, n, "its input is %lld bytes, more than a submit stores (%u MiB, and "
                 "%u bytes of sealing): refused, nothing read or run",
                 (long long)input, ZK_LEDGER_INPUT_MAX >> 20,
                 ZK_LEDGER_BLOB_MAX - ZK_LEDGER_INPUT_MAX);
    else if (witness >= 4096 || out_dir >= 4096)
        snprintf(why, n, "its %s is %lld characters long, more than a submit takes (4095): "
                 "refused", witness >= 4096 ? "witness name" : "job's output directory",
                 (long long)(witness >= 4096 ? witness : out_dir));
    else
        return 0;
    return 1;
}

int ledger_job_next(int state, const uint32_t count[ZK_PART_STATE_COUNT], uint32_t nparts,
                    int *finished)
{
    *finished = 0;
    if (count[ZK_PART_FAILED]) {
        *finished = 1;
        return ZK_JOB_FAILED;
    }
    if (count[ZK_PART_DONE] == nparts) {
        *finished = 1;
        return ZK_JOB_DONE;
    }
    return count[ZK_PART_QUEUED] < nparts ? ZK_JOB_RUNNING : state;
}

int ledger_slot_check(const char *name, const struct zk_ledger_part *p, int64_t key_id,
                      int32_t slot, struct zk_diag *diag)
{
    if (p->key_id != key_id)
        return zk_diag_set(diag, name, ZK_ESTATE,
                           "partition %lld belongs to key %lld, the slot says key %lld",
                           (long long)p->id, (long long)p->key_id, (long long)key_id);
    if (p->state == ZK_PART_QUEUED)
        return zk_diag_set(diag, name, ZK_ESTATE,
                           "partition %lld is queued: no slot holds its synthesis",
                           (long long)p->id);
    if ((p->state == ZK_PART_SYNTHESIZING || p->state == ZK_PART_READY) && p->slot != slot)
        return zk_diag_set(diag, name, ZK_ESTATE,
                           "partition %lld was synthesized into slot %d, not slot %d",
                           (long long)p->id, (int)p->slot, (int)slot);
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double ledger_median(double *v, uint32_t n)
{
    if (!n)
        return -1;
    qsort(v, n, sizeof v[0], cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int ledger_submit_opts_check(const char *path, const struct zk_ledger_submit_opts *o,
                             struct zk_diag *diag)
{
    if (!o)
        return 0;
    if (o->priority >= ZK_PRIO_COUNT)
        return zk_diag_set(diag, path, -EINVAL, "priority %d out of range", o->priority);
    if (o->deadline_ns < 0)
        return zk_diag_set(diag, path, -EINVAL, "negative deadline");
    if (o->request_id && strlen(o->request_id) > ZK_LEDGER_REQUEST_ID_MAX)
        return zk_diag_set(diag, path, -EINVAL, "request id longer than %d bytes",
                           ZK_LEDGER_REQUEST_ID_MAX);
    /* it is quoted in messages, which stay one line */
    for (const char *c = o->request_id; c && *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            return zk_diag_set(diag, path, -EINVAL, "request id holds a control character "
                               "(byte %d: 0x%02x)", (int)(c - o->request_id),
                               (unsigned char)*c);
    if (o->principal && strlen(o->principal) > ZK_LEDGER_PRINCIPAL_MAX)
        return zk_diag_set(diag, path, -EINVAL, "principal longer than %d bytes",
                           ZK_LEDGER_PRINCIPAL_MAX);
    for (const char *c = o->principal; c && *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            return zk_diag_set(diag, path, -EINVAL, "principal holds a control character");
    return 0;
}

void ledger_principal(const struct zk_ledger_submit_opts *o, int local_uid,
                      char buf[ZK_LEDGER_PRINCIPAL_MAX + 1])
{
    if (o && o->principal)
        snprintf(buf, ZK_LEDGER_PRINCIPAL_MAX + 1, "%s", o->principal);
    else if (local_uid)
        snprintf(buf, ZK_LEDGER_PRINCIPAL_MAX + 1, "uid:%u", (unsigned)getuid());
    else
        buf[0] = 0;
}

void ledger_request_digest(const struct zk_ledger_submit_opts *o, const char *const *name,
                           const char *const *input, const size_t *len, uint32_t n,
                           char hex[2 * ZK_SHA256_LEN + 1])
{
    /* h = H(n), then h = H(h | H(name) | has input | H(input)) per partition:
     * a chain, so that no buffer grows with the job */
    uint8_t h[ZK_SHA256_LEN], buf[3 * ZK_SHA256_LEN + 1];
    char count[32];
    int cl = snprintf(count, sizeof count, "zkslot request %u", (unsigned)n);
    zk_sha256(count, (size_t)cl, h);
    for (uint32_t i = 0; !(o && o->witness_later) && i < n; i++) {
        memcpy(buf, h, ZK_SHA256_LEN);
        zk_sha256(name[i], strlen(name[i]), buf + ZK_SHA256_LEN);
        buf[2 * ZK_SHA256_LEN] = input != NULL;
        zk_sha256(input ? input[i] : "", input ? len[i] : 0, buf + 2 * ZK_SHA256_LEN + 1);
        zk_sha256(buf, sizeof buf, h);
    }
    for (int i = 0; i < ZK_SHA256_LEN; i++)
        snprintf(hex + 2 * i, 3, "%02x", h[i]);
}

int ledger_request_reused(const char *path, const char *rid, int64_t id, int same_key,
                          const char *stored, const char *digest, struct zk_diag *diag)
{
    if (!same_key)
        return zk_diag_set(diag, path, -EEXIST, "request id '%s' is job %lld, of another key",
                           rid, (long long)id);
    if (stored[0] && strcmp(stored, digest))   /* '': a job from before digests */
        return zk_diag_set(diag, path, -EEXIST, "request id '%s' is job %lld, submitted with "
                           "other inputs or witnesses (a request id names one request)",
                           rid, (long long)id);
    return 0;
}
