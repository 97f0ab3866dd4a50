/*
 * keys.c -- proving keys in the ledger on PostgreSQL (zk/ledger.h): add,
 * look up by name or id, list, and the key file's recorded identity.
 */
#include <errno.h>
#include <string.h>

#include "ledger/pg/pg_internal.h"
#include "zk/error.h"
#include "zk/witgen.h"

#define KEY_COLS                                                                      \
    "id, name, path, curve, hash, file_size, n_vars, n_public, domain_size, added_ns," \
    " witgen_kind, witgen, witgen_hash, file_dev, file_ino, file_mtime_ns, priority, format"

/* Row `row` of res (KEY_COLS) into *k. */
static void key_row(const PGresult *res, int row, struct zk_ledger_key *k)
{
    memset(k, 0, sizeof *k);
    k->id = lpg_i64(res, row, 0);
    lpg_text(k->name, sizeof k->name, res, row, 1);
    lpg_text(k->path, sizeof k->path, res, row, 2);
    lpg_text(k->curve, sizeof k->curve, res, row, 3);
    lpg_text(k->hash, sizeof k->hash, res, row, 4);
    k->file_size = (uint64_t)lpg_i64(res, row, 5);
    k->n_vars = (uint64_t)lpg_i64(res, row, 6);
    k->n_public = (uint64_t)lpg_i64(res, row, 7);
    k->domain_size = (uint64_t)lpg_i64(res, row, 8);
    k->added_ns = lpg_i64(res, row, 9);
    k->witgen_kind = zk_witgen_kind_parse(PQgetvalue(res, row, 10));
    if (k->witgen_kind < 0)
        k->witgen_kind = ZK_WITGEN_NONE;
    lpg_text(k->witgen, sizeof k->witgen, res, row, 11);
    lpg_text(k->witgen_hash, sizeof k->witgen_hash, res, row, 12);
    k->file_dev = (uint64_t)lpg_i64(res, row, 13);
    k->file_ino = (uint64_t)lpg_i64(res, row, 14);
    k->file_mtime_ns = lpg_i64(res, row, 15);
    k->priority = (int)lpg_i64(res, row, 16);
    k->format = zk_key_format_parse(PQgetvalue(res, row, 17));
}

int lpg_key_add(zk_ledger *l, struct zk_ledger_key *k, struct zk_diag *diag)
{
    int r = ledger_key_check(l->path, k, diag);
    if (r)
        return r;
    int64_t now = lpg_now_ns(l);
    struct lpg_args a = { 0 };
    lpg_arg_str(&a, k->name);
    lpg_arg_str(&a, k->path);
    lpg_arg_str(&a, k->curve);
    lpg_arg_str(&a, k->hash);
    lpg_arg_i64(&a, (int64_t)k->file_size);
    lpg_arg_i64(&a, (int64_t)k->n_vars);
    lpg_arg_i64(&a, (int64_t)k->n_public);
    lpg_arg_i64(&a, (int64_t)k->domain_size);
    lpg_arg_i64(&a, now);
    lpg_arg_str(&a, zk_witgen_kind_name(k->witgen_kind));
    lpg_arg_str(&a, k->witgen);
    lpg_arg_str(&a, k->witgen_hash);
    lpg_arg_i64(&a, (int64_t)k->file_dev);
    lpg_arg_i64(&a, (int64_t)k->file_ino);
    lpg_arg_i64(&a, k->file_mtime_ns);
    lpg_arg_i64(&a, k->priority);
    lpg_arg_str(&a, zk_key_format_name(k->format));
    /* the unique name decides between two machines adding one name at once */
    PGresult *res = lpg_query(l,
                              "INSERT INTO keys (name, path, curve, hash, file_size, n_vars,"
                              " n_public, domain_size, added_ns, witgen_kind, witgen,"
                              " witgen_hash, file_dev, file_ino, file_mtime_ns, priority,"
                              " format) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,"
                              "$14,$15,$16,$17)"
                              " ON CONFLICT (name) DO NOTHING RETURNING id",
                              &a, 0, diag);
    if (!res)
        return ZK_ELEDGER;
    int n = PQntuples(res);
    if (n == 1) {
        k->id = lpg_i64(res, 0, 0);
        k->added_ns = now;
    }
    PQclear(res);
    return n == 1 ? 0 : zk_diag_set(diag, l->path, -EEXIST, "a key named '%s' exists already",
                                   k->name);
}

static int key_get(zk_ledger *l, const char *name, int64_t id, struct zk_ledger_key *ret,
                   struct zk_diag *diag)
{
    struct lpg_args a = { 0 };
    if (name)
        lpg_arg_str(&a, name);
    else
        lpg_arg_i64(&a, id);
    PGresult *res = lpg_query(l, name ? "SELECT " KEY_COLS " FROM keys WHERE name = $1"
                                      : "SELECT " KEY_COLS " FROM keys WHERE id = $1",
                              &a, 0, diag);
    if (!res)
        return ZK_ELEDGER;
    int n = PQntuples(res);
    if (n)
        key_row(res, 0, ret);
    PQclear(res);
    if (n)
        return 0;
    if (name)
        return zk_diag_set(diag, l->path, -ENOENT, "no key named '%s'", name);
    return zk_diag_set(diag, l->path, -ENOENT, "no key with id %lld", (long long)id);
}

int lpg_key_get(zk_ledger *l, const char *name, struct zk_ledger_key *ret, struct zk_diag *diag)
{
    return key_get(l, name, 0, ret, diag);
}

int lpg_key_get_id(zk_ledger *l, int64_t id, struct zk_ledger_key *ret, struct zk_diag *diag)
{
    return key_get(l, NULL, id, ret, diag);
}

int lpg_key_set_identity(zk_ledger *l, int64_t id, uint64_t dev, uint64_t ino, int64_t mtime_ns,
                         struct zk_diag *diag)
{
    struct lpg_args a = { 0 };
    lpg_arg_i64(&a, (int64_t)dev);
    lpg_arg_i64(&a, (int64_t)ino);
    lpg_arg_i64(&a, mtime_ns);
    lpg_arg_i64(&a, id);
    int r = lpg_cmd(l, "UPDATE keys SET file_dev = $1, file_ino = $2, file_mtime_ns = $3"
                       " WHERE id = $4", &a, diag);
    return r < 0 ? r : 0;
}

int lpg_key_list(zk_ledger *l, int (*fn)(void *ctx, const struct zk_ledger_key *k), void *ctx,
                 struct zk_diag *diag)
{
    PGresult *res = lpg_query(l, "SELECT " KEY_COLS " FROM keys ORDER BY id", NULL, 0, diag);
    if (!res)
        return ZK_ELEDGER;
    int r = 0;
    struct zk_ledger_key k;
    for (int i = 0; i < PQntuples(res) && !r; i++) {
        key_row(res, i, &k);
        r = fn(ctx, &k);
    }
    PQclear(res);
    return r;
}
