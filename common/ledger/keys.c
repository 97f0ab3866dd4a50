/*
 * keys.c -- proving keys in the ledger (zk/ledger.h): add, look up by name
 * or id, list, and the file identity (device, inode, mtime) recorded for a
 * key's .zkey.
 */
#include <errno.h>
#include <string.h>

#include "ledger/ledger_internal.h"
#include "zk/error.h"
#include "zk/witgen.h"

#define KEY_COLS                                                                      \
    "id, name, path, curve, hash, file_size, n_vars, n_public, domain_size, added_ns," \
    " witgen_kind, witgen, witgen_hash, file_dev, file_ino, file_mtime_ns, priority, format"

/* Row s (KEY_COLS) into *k. */
static void key_row(sqlite3_stmt *s, struct zk_ledger_key *k)
{
    memset(k, 0, sizeof *k);
    k->id = sqlite3_column_int64(s, 0);
    ledger_text(k->name, sizeof k->name, s, 1);
    ledger_text(k->path, sizeof k->path, s, 2);
    ledger_text(k->curve, sizeof k->curve, s, 3);
    ledger_text(k->hash, sizeof k->hash, s, 4);
    k->file_size = (uint64_t)sqlite3_column_int64(s, 5);
    k->n_vars = (uint64_t)sqlite3_column_int64(s, 6);
    k->n_public = (uint64_t)sqlite3_column_int64(s, 7);
    k->domain_size = (uint64_t)sqlite3_column_int64(s, 8);
    k->added_ns = sqlite3_column_int64(s, 9);
    const char *kind = (const char *)sqlite3_column_text(s, 10);
    k->witgen_kind = kind ? zk_witgen_kind_parse(kind) : ZK_WITGEN_NONE;
    if (k->witgen_kind < 0)
        k->witgen_kind = ZK_WITGEN_NONE;
    ledger_text(k->witgen, sizeof k->witgen, s, 11);
    ledger_text(k->witgen_hash, sizeof k->witgen_hash, s, 12);
    k->file_dev = (uint64_t)sqlite3_column_int64(s, 13);
    k->file_ino = (uint64_t)sqlite3_column_int64(s, 14);
    k->file_mtime_ns = sqlite3_column_int64(s, 15);
    k->priority = sqlite3_column_int(s, 16);
    k->format = zk_key_format_parse((const char *)sqlite3_column_text(s, 17));
}

/* The cached lookup of the key named name (name != NULL) or with id id,
 * bound and ready to step; NULL (diag set) on failure. */
static sqlite3_stmt *key_lookup(zk_ledger *l, const char *name, int64_t id,
                                struct zk_diag *diag)
{
    static const char sql_key_by_name[] = "SELECT " KEY_COLS " FROM keys WHERE name = ?";
    static const char sql_key_by_id[] = "SELECT " KEY_COLS " FROM keys WHERE id = ?";
    sqlite3_stmt *s = name ? ledger_stmt(l, LS_KEY_BY_NAME, sql_key_by_name, diag)
                           : ledger_stmt(l, LS_KEY_BY_ID, sql_key_by_id, diag);
    if (s && name)
        sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
    else if (s)
        sqlite3_bind_int64(s, 1, id);
    return s;
}

int lsq_key_add(zk_ledger *l, struct zk_ledger_key *k, struct zk_diag *diag)
{
    int r = ledger_key_check(l->path, k, diag);
    if (r)
        return r;
    int64_t now = ledger_now_ns();
    static const char sql_key_add[] =
        "INSERT INTO keys (name, path, curve, hash, file_size, n_vars, n_public,"
        " domain_size, added_ns, witgen_kind, witgen, witgen_hash, file_dev,"
        " file_ino, file_mtime_ns, priority, format)"
        " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)";
    sqlite3_stmt *s = key_lookup(l, k->name, 0, diag);
    r = s ? ledger_begin(l, diag) : ZK_ELEDGER;
    if (r)
        return r;
    r = ledger_step(l, s, diag);
    if (r > 0) {
        sqlite3_reset(s);
        r = zk_diag_set(diag, l->path, -EEXIST, "a key named '%s' exists already", k->name);
        goto out;
    }
    if (r < 0 || !(s = ledger_stmt(l, LS_KEY_ADD, sql_key_add, diag))) {
        r = r < 0 ? r : ZK_ELEDGER;
        goto out;
    }
    sqlite3_bind_text(s, 1, k->name, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 2, k->path, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 3, k->curve, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 4, k->hash, -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 5, (int64_t)k->file_size);
    sqlite3_bind_int64(s, 6, (int64_t)k->n_vars);
    sqlite3_bind_int64(s, 7, (int64_t)k->n_public);
    sqlite3_bind_int64(s, 8, (int64_t)k->domain_size);
    sqlite3_bind_int64(s, 9, now);
    sqlite3_bind_text(s, 10, zk_witgen_kind_name(k->witgen_kind), -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 11, k->witgen, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 12, k->witgen_hash, -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 13, (int64_t)k->file_dev);
    sqlite3_bind_int64(s, 14, (int64_t)k->file_ino);
    sqlite3_bind_int64(s, 15, k->file_mtime_ns);
    sqlite3_bind_int(s, 16, k->priority);
    sqlite3_bind_text(s, 17, zk_key_format_name(k->format), -1, SQLITE_STATIC);
    r = ledger_run(l, s, diag);
    if (r > 0)
        r = 0;
out:
    r = ledger_end(l, r, diag);
    if (!r) {
        k->id = sqlite3_last_insert_rowid(l->db);
        k->added_ns = now;
    }
    return r;
}

static int key_get(zk_ledger *l, const char *name, int64_t id, struct zk_ledger_key *ret,
                   struct zk_diag *diag)
{
    sqlite3_stmt *s = key_lookup(l, name, id, diag);
    if (!s)
        return ZK_ELEDGER;
    int r = ledger_step(l, s, diag);
    if (r > 0) {
        key_row(s, ret);
        sqlite3_reset(s);
        return 0;
    }
    if (r == 0) {
        if (name)
            return zk_diag_set(diag, l->path, -ENOENT, "no key named '%s'", name);
        return zk_diag_set(diag, l->path, -ENOENT, "no key with id %lld", (long long)id);
    }
    return r;
}

int lsq_key_get(zk_ledger *l, const char *name, struct zk_ledger_key *ret,
                      struct zk_diag *diag)
{
    return key_get(l, name, 0, ret, diag);
}

int lsq_key_get_id(zk_ledger *l, int64_t id, struct zk_ledger_key *ret,
                         struct zk_diag *diag)
{
    return key_get(l, NULL, id, ret, diag);
}

int lsq_key_set_identity(zk_ledger *l, int64_t id, uint64_t dev, uint64_t ino,
                               int64_t mtime_ns, struct zk_diag *diag)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(l->db, "UPDATE keys SET file_dev = ?, file_ino = ?, file_mtime_ns = ?"
                           " WHERE id = ?", -1, &s, NULL))
        return ledger_dberr(l, diag);
    sqlite3_bind_int64(s, 1, (int64_t)dev);
    sqlite3_bind_int64(s, 2, (int64_t)ino);
    sqlite3_bind_int64(s, 3, mtime_ns);
    sqlite3_bind_int64(s, 4, id);
    int r = ledger_run(l, s, diag);
    sqlite3_finalize(s);
    return r < 0 ? r : 0;
}

int lsq_key_list(zk_ledger *l, int (*fn)(void *ctx, const struct zk_ledger_key *k),
                       void *ctx, struct zk_diag *diag)
{
    sqlite3_stmt *s;
    struct zk_ledger_key k;
    int r;
    if (sqlite3_prepare_v2(l->db, "SELECT " KEY_COLS " FROM keys ORDER BY id", -1, &s, NULL))
        return ledger_dberr(l, diag);
    while ((r = ledger_step(l, s, diag)) > 0) {
        key_row(s, &k);
        if ((r = fn(ctx, &k)) != 0)
            break;
    }
    sqlite3_finalize(s);
    return r;
}
