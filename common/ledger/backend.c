/*
 * backend.c -- which backend a ledger URL names, and the public functions
 * of zk/ledger.h, each handed to the handle's backend (struct ledger_ops,
 * ledger_internal.h).
 *
 * "postgresql://..." or "postgres://..." and libpq keyword strings
 * ("host=/run/postgresql dbname=zkslot") are PostgreSQL (pg/, built when
 * libpq is found); "sqlite:PATH" and any other text are the path of an
 * SQLite file (schema.c).
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ledger/ledger_internal.h"
#include "zk/error.h"

/* A libpq keyword string starts with a keyword and '=' ("host=...", "dbname = x"). */
static int is_keywords(const char *s)
{
    const char *p = s;
    while (*p == '_' || isalpha((unsigned char)*p))
        p++;
    if (p == s)
        return 0;
    while (*p == ' ' || *p == '\t')
        p++;
    return *p == '=';
}

const char *zk_ledger_sqlite_path(const char *url)
{
    if (!strncmp(url, "sqlite:", 7))
        return url + 7;
    if (!strncmp(url, "postgresql://", 13) || !strncmp(url, "postgres://", 11) ||
        is_keywords(url))
        return NULL;
    return url;
}

int zk_ledger_open(const char *url, unsigned flags, unsigned busy_ms, zk_ledger **ret,
                   struct zk_diag *diag)
{
    const char *path = zk_ledger_sqlite_path(url);
    if (path) {
        if (!*path)
            return zk_diag_set(diag, url, -EINVAL, "the ledger's path is empty");
        return lsq_open(path, flags, busy_ms, ret, diag);
    }
#if ZK_HAVE_LIBPQ
    return lpg_open(url, flags, busy_ms, ret, diag);
#else
    return zk_diag_set(diag, "ledger", -ENOTSUP,
                       "a PostgreSQL URL, but this zkslot was built without libpq (libpq-dev)");
#endif
}

void zk_ledger_close(zk_ledger *l)
{
    if (!l)
        return;
    free(l->claim_keys);
    l->ops->close(l);
}

int zk_ledger_set_claim_keys(zk_ledger *l, const int64_t *ids, unsigned n)
{
    char *s = NULL;
    if (ids) {
        size_t cap = 3 + (size_t)n * 21, k = 0;
        if (!(s = malloc(cap)))
            return -ENOMEM;
        s[k++] = '{';
        for (unsigned i = 0; i < n; i++)
            k += (size_t)snprintf(s + k, cap - k, "%s%" PRId64, i ? "," : "", ids[i]);
        snprintf(s + k, cap - k, "}");
    }
    free(l->claim_keys);
    l->claim_keys = s;
    return 0;
}

void zk_ledger_set_claim_job(zk_ledger *l, int64_t job)
{
    l->claim_job = job;
}

const char *zk_ledger_path(const zk_ledger *l)
{
    return l->path;
}

const char *zk_ledger_backend(const zk_ledger *l)
{
    return l->ops->name;
}

int zk_ledger_set_machine(zk_ledger *l, const char *name)
{
    if (!name || !*name || !l->ops->set_machine)
        return 0;
    if (strlen(name) > 63)
        return -EINVAL;
    l->ops->set_machine(l, name);
    return 0;
}

int64_t zk_ledger_now_ns(const zk_ledger *l)
{
    return l->ops->now_ns ? l->ops->now_ns(l) : ledger_now_ns();
}

void zk_ledger_set_lease(zk_ledger *l, unsigned lease_s)
{
    if (l->ops->set_lease)
        l->ops->set_lease(l, lease_s);
}

void zk_ledger_set_interrupt(zk_ledger *l, int (*fn)(void *ctx), void *ctx)
{
    if (l->ops->set_interrupt)
        l->ops->set_interrupt(l, fn, ctx);
}

const char *zk_ledger_machine(const zk_ledger *l)
{
    return l->ops->machine ? l->ops->machine(l) : "";
}

int zk_ledger_lease_renew(zk_ledger *l, unsigned lease_s, int *ret_lost, struct zk_diag *diag)
{
    *ret_lost = 0;
    return l->ops->lease_renew ? l->ops->lease_renew(l, lease_s, ret_lost, diag) : 0;
}

int zk_ledger_lease_expire(zk_ledger *l, uint32_t *ret_changed, struct zk_diag *diag)
{
    uint32_t n = 0;
    int r = l->ops->lease_expire ? l->ops->lease_expire(l, &n, diag) : 0;
    if (!r && ret_changed)
        *ret_changed = n;
    return r;
}

int zk_ledger_key_add(zk_ledger *l, struct zk_ledger_key *k, struct zk_diag *diag)
{
    return l->ops->key_add(l, k, diag);
}

int zk_ledger_key_get(zk_ledger *l, const char *name, struct zk_ledger_key *ret,
                      struct zk_diag *diag)
{
    return l->ops->key_get(l, name, ret, diag);
}

int zk_ledger_key_get_id(zk_ledger *l, int64_t id, struct zk_ledger_key *ret,
                         struct zk_diag *diag)
{
    return l->ops->key_get_id(l, id, ret, diag);
}

int zk_ledger_key_set_identity(zk_ledger *l, int64_t id, uint64_t dev, uint64_t ino,
                               int64_t mtime_ns, struct zk_diag *diag)
{
    return l->ops->key_set_identity(l, id, dev, ino, mtime_ns, diag);
}

int zk_ledger_key_list(zk_ledger *l, int (*fn)(void *ctx, const struct zk_ledger_key *k),
                       void *ctx, struct zk_diag *diag)
{
    return l->ops->key_list(l, fn, ctx, diag);
}

int zk_ledger_job_submit_opts(zk_ledger *l, int64_t key_id, const char *out_dir,
                              struct zk_ledger_submit_opts *o, const char *const *name,
                              const char *const *input, const size_t *len, uint32_t n,
                              int64_t *ret_id, struct zk_diag *diag)
{
    int r = ledger_submit_opts_check(l->path, o, diag);
    if (r)
        return r;
    for (uint32_t i = 0; input && i < n; i++)
        if (len[i] > ZK_LEDGER_INPUT_MAX)
            return zk_diag_set(diag, name[i], -E2BIG, "input of %zu bytes: at most %u",
                               len[i], ZK_LEDGER_INPUT_MAX);
    if (o)
        o->existing = 0;
    return l->ops->job_submit(l, key_id, out_dir, o, name, input, len, n, ret_id, diag);
}

int zk_ledger_job_submit(zk_ledger *l, int64_t key_id, const char *out_dir,
                         const char *const *witness, uint32_t n, int64_t *ret_id,
                         struct zk_diag *diag)
{
    return zk_ledger_job_submit_opts(l, key_id, out_dir, NULL, witness, NULL, NULL, n, ret_id,
                                     diag);
}

int zk_ledger_job_submit_inputs(zk_ledger *l, int64_t key_id, const char *out_dir,
                                const char *const *name, const char *const *input,
                                const size_t *len, uint32_t n, int64_t *ret_id,
                                struct zk_diag *diag)
{
    return zk_ledger_job_submit_opts(l, key_id, out_dir, NULL, name, input, len, n, ret_id,
                                     diag);
}

int zk_ledger_part_input(zk_ledger *l, int64_t id, char **ret, size_t *ret_len,
                         struct zk_diag *diag)
{
    *ret = NULL;
    int r = l->ops->part_blobs(l, id, "input", 1, "input (a .wtns one)", ret, ret_len, diag);
    if (r) {
        free(*ret);
        *ret = NULL;
    }
    return r;
}

int zk_ledger_part_vet(zk_ledger *l, int64_t id, char *why, size_t n, struct zk_diag *diag)
{
    why[0] = 0;
    return l->ops->part_vet(l, id, why, n, diag);
}

int zk_ledger_job_resolve_out(struct zk_ledger_job *j, const char *state_dir)
{
    if (j->out_dir[0])
        return 0;
    int k = snprintf(j->out_dir, sizeof j->out_dir, "%s/jobs/%lld", state_dir, (long long)j->id);
    return k < 0 || (size_t)k >= sizeof j->out_dir ? -ENAMETOOLONG : 0;
}

int zk_ledger_job_get(zk_ledger *l, int64_t id, struct zk_ledger_job *ret,
                      struct zk_diag *diag)
{
    return l->ops->job_get(l, id, ret, diag);
}

int zk_ledger_job_list(zk_ledger *l, int (*fn)(void *ctx, const struct zk_ledger_job *j),
                       void *ctx, struct zk_diag *diag)
{
    return l->ops->job_list(l, fn, ctx, diag);
}

int zk_ledger_part_list(zk_ledger *l, int64_t job_id,
                        int (*fn)(void *ctx, const struct zk_ledger_part *p), void *ctx,
                        struct zk_diag *diag)
{
    return l->ops->part_list(l, job_id, fn, ctx, diag);
}

int zk_ledger_part_get(zk_ledger *l, int64_t id, struct zk_ledger_part *ret,
                       struct zk_diag *diag)
{
    return l->ops->part_get(l, id, ret, diag);
}

int zk_ledger_job_cancel(zk_ledger *l, int64_t id, struct zk_diag *diag)
{
    return l->ops->job_cancel(l, id, diag);
}

int zk_ledger_counts(zk_ledger *l, uint64_t count[ZK_PART_STATE_COUNT], struct zk_diag *diag)
{
    return l->ops->counts(l, count, diag);
}

int zk_ledger_has_queued(zk_ledger *l, struct zk_diag *diag)
{
    return l->ops->has_queued(l, diag);
}

int zk_ledger_claim_queued(zk_ledger *l, const struct zk_proc_id *me, int32_t slot,
                           struct zk_ledger_part *ret, struct zk_diag *diag)
{
    return l->ops->claim_queued(l, me, slot, ZK_PRIO_LOW, ret, diag);
}

int zk_ledger_claim_queued_class(zk_ledger *l, const struct zk_proc_id *me, int32_t slot,
                                 int min_class, struct zk_ledger_part *ret,
                                 struct zk_diag *diag)
{
    return l->ops->claim_queued(l, me, slot, min_class, ret, diag);
}

void zk_ledger_set_aging(zk_ledger *l, unsigned aging_s)
{
    l->aging_ns = (int64_t)aging_s * 1000000000;
}

void zk_ledger_set_seal(zk_ledger *l, zk_ledger_seal_fn fn, void *ctx)
{
    l->seal = fn;
    l->seal_ctx = ctx;
}

int zk_ledger_queued_top(zk_ledger *l, struct zk_diag *diag)
{
    return l->ops->queued_top(l, diag);
}

int zk_ledger_job_reprioritize(zk_ledger *l, int64_t id, int prio, struct zk_diag *diag)
{
    if (prio < 0 || prio >= ZK_PRIO_COUNT)
        return zk_diag_set(diag, l->path, -EINVAL, "priority %d out of range", prio);
    return l->ops->job_reprioritize(l, id, prio, diag);
}

int zk_ledger_expire_deadlines(zk_ledger *l, int64_t now_ns, uint32_t *ret_failed,
                               struct zk_diag *diag)
{
    uint32_t n = 0;
    int r = l->ops->expire_deadlines(l, now_ns, &n, diag);
    if (ret_failed)
        *ret_failed = n;
    return r;
}

int zk_ledger_estimate(zk_ledger *l, int prio, struct zk_ledger_estimate *ret,
                       struct zk_diag *diag)
{
    memset(ret, 0, sizeof *ret);
    if (prio < 0 || prio >= ZK_PRIO_COUNT)
        return zk_diag_set(diag, l->path, -EINVAL, "priority %d out of range", prio);
    int r = l->ops->estimate(l, prio, ret, diag);
    if (ret->provers == 0)
        ret->provers = 1;
    return r;
}

int zk_ledger_part_ready(zk_ledger *l, int64_t id, const struct zk_proc_id *me,
                         double synth_s, double witness_s, struct zk_diag *diag)
{
    return l->ops->part_ready(l, id, me, synth_s, witness_s, diag);
}

int zk_ledger_part_statement(zk_ledger *l, int64_t id, const struct zk_proc_id *me,
                             const char *statement, struct zk_diag *diag)
{
    return l->ops->part_statement(l, id, me, statement, diag);
}

int zk_ledger_part_proving(zk_ledger *l, int64_t id, const struct zk_proc_id *me,
                           int32_t slot, struct zk_ledger_part *ret, struct zk_diag *diag)
{
    return l->ops->part_proving(l, id, -1, me, slot, ret, diag);
}

int zk_ledger_part_proving_slot(zk_ledger *l, int64_t id, int64_t key_id,
                                const struct zk_proc_id *me, int32_t slot,
                                struct zk_ledger_part *ret, struct zk_diag *diag)
{
    return l->ops->part_proving(l, id, key_id < 0 ? INT64_MAX : key_id, me, slot, ret, diag);
}

int zk_ledger_part_done(zk_ledger *l, int64_t id, const struct zk_proc_id *me,
                        const struct zk_ledger_timings *t, const struct zk_ledger_result *res,
                        unsigned flags, struct zk_diag *diag)
{
    if (res && (res->proof_len > ZK_LEDGER_RESULT_MAX || res->pub_len > ZK_LEDGER_RESULT_MAX))
        return zk_diag_set(diag, l->path, -EFBIG, "partition %lld: result of %zu + %zu bytes, "
                           "more than the ledger keeps (%u MiB each)", (long long)id,
                           res->proof_len, res->pub_len, ZK_LEDGER_RESULT_MAX >> 20);
    return l->ops->part_done(l, id, me, t, res, flags, diag);
}

int zk_ledger_part_result(zk_ledger *l, int64_t id, struct zk_ledger_result *ret,
                          struct zk_diag *diag)
{
    char *v[2] = { NULL, NULL };
    size_t n[2] = { 0, 0 };
    int r = l->ops->part_blobs(l, id, "proof_json, public_json", 2, "result (not done?)", v, n,
                               diag);
    *ret = (struct zk_ledger_result){ v[0], n[0], v[1], n[1] };
    if (r)
        zk_ledger_result_free(ret);
    return r;
}

void zk_ledger_result_free(struct zk_ledger_result *r)
{
    free(r->proof);
    free(r->pub);
    memset(r, 0, sizeof *r);
}

int zk_ledger_part_error(zk_ledger *l, int64_t id, const struct zk_proc_id *me,
                         const char *error, uint32_t max_errors, uint32_t max_attempts,
                         int *ret_failed, struct zk_diag *diag)
{
    return l->ops->part_error(l, id, me, error, max_errors, max_attempts, ret_failed, diag);
}

int zk_ledger_part_requeue(zk_ledger *l, int64_t id, enum zk_part_state expect,
                           const struct zk_proc_id *owner, const char *note,
                           struct zk_diag *diag)
{
    return l->ops->part_requeue(l, id, expect, owner, note, diag);
}

int zk_ledger_reconcile(zk_ledger *l, int (*slot_holds)(void *ctx, int64_t part_id),
                        void *ctx, int check_ready, uint32_t max_attempts,
                        uint32_t *ret_changed, struct zk_diag *diag)
{
    return l->ops->reconcile(l, slot_holds, ctx, check_ready, max_attempts, ret_changed, diag);
}

int zk_ledger_daemon_started(zk_ledger *l, const char *role, const char *instance, int32_t pid,
                             struct zk_diag *diag)
{
    return l->ops->daemon_started(l, role, instance, pid, diag);
}

int zk_ledger_daemon_list(zk_ledger *l, int (*fn)(void *ctx, const struct zk_ledger_daemon *d),
                          void *ctx, struct zk_diag *diag)
{
    return l->ops->daemon_list(l, fn, ctx, diag);
}

int zk_ledger_farm_daemons(zk_ledger *l, int (*fn)(void *ctx, const struct zk_ledger_daemon *d),
                           void *ctx, struct zk_diag *diag)
{
    return (l->ops->farm_daemons ? l->ops->farm_daemons : l->ops->daemon_list)(l, fn, ctx, diag);
}

int zk_ledger_totals(zk_ledger *l, struct zk_ledger_totals *ret, struct zk_diag *diag)
{
    return l->ops->totals(l, ret, diag);
}

int zk_ledger_done_times(zk_ledger *l, int64_t since_ns,
                         int (*fn)(void *ctx, const struct zk_ledger_part_times *t), void *ctx,
                         struct zk_diag *diag)
{
    return l->ops->done_times(l, since_ns, fn, ctx, diag);
}
