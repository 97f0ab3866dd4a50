/*
 * ledger.c -- the durable record of keys, jobs and partitions (zk/ledger.h).
 *
 * One SQLite database in WAL mode.  The schema is a list of migrations
 * (migrations[v] brings user_version v to v + 1); application_id marks the
 * file as a zkslot ledger so that an unrelated database is refused instead
 * of being written to.  Every state change is one BEGIN IMMEDIATE
 * transaction: the write lock is taken before the partition is read, so two
 * processes never both see it queued.  After each partition change the job's
 * state is derived again inside the same transaction (derive_job).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ledger/faultvfs.h"
#include "zk/error.h"
#include "zk/ledger.h"
#include "zk/witgen.h"

#define LEDGER_APP_ID 0x7a6b736c   /* "zksl" */

/* migrations[v]: user_version v -> v + 1.  Never edit a released entry. */
static const char *const migrations[] = {
    /* 0 -> 1: the schema */
    "CREATE TABLE keys ("
    "  id INTEGER PRIMARY KEY AUTOINCREMENT,"
    "  name TEXT NOT NULL UNIQUE,"
    "  path TEXT NOT NULL,"
    "  curve TEXT NOT NULL,"
    "  hash TEXT NOT NULL,"
    "  file_size INTEGER NOT NULL,"
    "  n_vars INTEGER NOT NULL,"
    "  n_public INTEGER NOT NULL,"
    "  domain_size INTEGER NOT NULL,"
    "  added_ns INTEGER NOT NULL);"
    "CREATE TABLE jobs ("
    "  id INTEGER PRIMARY KEY AUTOINCREMENT,"
    "  key_id INTEGER NOT NULL REFERENCES keys(id),"
    "  nparts INTEGER NOT NULL,"
    "  state TEXT NOT NULL,"
    "  out_dir TEXT NOT NULL,"
    "  submitted_ns INTEGER NOT NULL,"
    "  started_ns INTEGER NOT NULL DEFAULT 0,"
    "  finished_ns INTEGER NOT NULL DEFAULT 0,"
    "  error TEXT NOT NULL DEFAULT '');"
    "CREATE TABLE partitions ("
    "  id INTEGER PRIMARY KEY AUTOINCREMENT,"
    "  job_id INTEGER NOT NULL REFERENCES jobs(id),"
    "  idx INTEGER NOT NULL,"
    "  witness TEXT NOT NULL,"
    "  state TEXT NOT NULL,"
    "  attempts INTEGER NOT NULL DEFAULT 0,"
    "  errors INTEGER NOT NULL DEFAULT 0,"
    "  proofs INTEGER NOT NULL DEFAULT 0,"
    "  owner_pid INTEGER NOT NULL DEFAULT 0,"
    "  owner_start INTEGER NOT NULL DEFAULT 0,"
    "  owner_role TEXT NOT NULL DEFAULT '',"
    "  slot INTEGER NOT NULL DEFAULT -1,"
    "  synth_s REAL NOT NULL DEFAULT -1,"
    "  wait_s REAL NOT NULL DEFAULT -1,"
    "  start_s REAL NOT NULL DEFAULT -1,"
    "  finalize_s REAL NOT NULL DEFAULT -1,"
    "  queued_ns INTEGER NOT NULL DEFAULT 0,"
    "  ready_ns INTEGER NOT NULL DEFAULT 0,"
    "  done_ns INTEGER NOT NULL DEFAULT 0,"
    "  error TEXT NOT NULL DEFAULT '');"
    "CREATE INDEX partitions_state ON partitions(state, id);"
    "CREATE UNIQUE INDEX partitions_job ON partitions(job_id, idx);",
    /* 1 -> 2: daemon starts (restarts for the metrics) */
    "CREATE TABLE daemons ("
    "  role TEXT NOT NULL,"
    "  instance TEXT NOT NULL,"
    "  starts INTEGER NOT NULL DEFAULT 0,"
    "  last_pid INTEGER NOT NULL DEFAULT 0,"
    "  last_start_ns INTEGER NOT NULL DEFAULT 0,"
    "  PRIMARY KEY (role, instance));",
    /* 2 -> 3: witness generators of keys, partitions from circuit inputs */
    "ALTER TABLE keys ADD COLUMN witgen_kind TEXT NOT NULL DEFAULT '';"
    "ALTER TABLE keys ADD COLUMN witgen TEXT NOT NULL DEFAULT '';"
    "ALTER TABLE keys ADD COLUMN witgen_hash TEXT NOT NULL DEFAULT '';"
    "ALTER TABLE keys ADD COLUMN file_dev INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE keys ADD COLUMN file_ino INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE keys ADD COLUMN file_mtime_ns INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE partitions ADD COLUMN input BLOB;"
    "ALTER TABLE partitions ADD COLUMN witness_s REAL NOT NULL DEFAULT -1;",
    /* 3 -> 4: an owner's PID namespace and boot (zk/proc.h; 0 = not recorded) */
    "ALTER TABLE partitions ADD COLUMN owner_ns INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE partitions ADD COLUMN owner_boot INTEGER NOT NULL DEFAULT 0;",
};
#define N_MIGRATIONS (sizeof migrations / sizeof migrations[0])
_Static_assert(N_MIGRATIONS == ZK_LEDGER_SCHEMA_VERSION, "one migration per schema version");

/* Statements prepared once per handle (SQLITE_PREPARE_PERSISTENT). */
enum {
    S_KEY_ADD,
    S_KEY_BY_NAME,
    S_KEY_BY_ID,
    S_JOB_INSERT,
    S_JOB_SET_OUT,
    S_PART_INSERT,
    S_JOB_GET,
    S_JOB_COUNTS,
    S_PART_GET,
    S_HAS_QUEUED,
    S_OLDEST_QUEUED,
    S_CLAIM,
    S_READY,
    S_PROVING,
    S_DONE,
    S_DONE_AGAIN,
    S_ERROR_QUEUE,
    S_ERROR_FAIL,
    S_REQUEUE,
    S_JOB_STATE,
    S_JOB_SET_STATE,
    S_JOB_CANCEL_PARTS,
    S_JOB_FAILED_ERR,
    S_COUNT
};

#define PART_COLS                                                                       \
    "p.id, p.job_id, j.key_id, p.idx, p.witness, p.state, p.attempts, p.errors, p.proofs," \
    " p.owner_pid, p.owner_start, p.owner_role, p.slot, p.synth_s, p.wait_s, p.start_s,"   \
    " p.finalize_s, p.queued_ns, p.ready_ns, p.done_ns, p.error, p.input IS NOT NULL,"   \
    " p.witness_s, p.owner_ns, p.owner_boot"
#define KEY_COLS                                                                      \
    "id, name, path, curve, hash, file_size, n_vars, n_public, domain_size, added_ns," \
    " witgen_kind, witgen, witgen_hash, file_dev, file_ino, file_mtime_ns"
#define JOB_COLS                                                                         \
    "j.id, j.key_id, k.name, j.nparts, j.state, j.out_dir, j.submitted_ns, j.started_ns," \
    " j.finished_ns, j.error"

static const char *const sql[S_COUNT] = {
    [S_KEY_ADD] = "INSERT INTO keys (name, path, curve, hash, file_size, n_vars, n_public,"
                  " domain_size, added_ns, witgen_kind, witgen, witgen_hash, file_dev,"
                  " file_ino, file_mtime_ns) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
    [S_KEY_BY_NAME] = "SELECT " KEY_COLS " FROM keys WHERE name = ?",
    [S_KEY_BY_ID] = "SELECT " KEY_COLS " FROM keys WHERE id = ?",
    [S_JOB_INSERT] = "INSERT INTO jobs (key_id, nparts, state, out_dir, submitted_ns)"
                     " VALUES (?, ?, 'queued', ?, ?)",
    [S_JOB_SET_OUT] = "UPDATE jobs SET out_dir = ? WHERE id = ?",
    [S_PART_INSERT] = "INSERT INTO partitions (job_id, idx, witness, state, queued_ns, input)"
                      " VALUES (?, ?, ?, 'queued', ?, ?)",
    [S_JOB_GET] = "SELECT " JOB_COLS " FROM jobs j JOIN keys k ON k.id = j.key_id WHERE j.id = ?",
    [S_JOB_COUNTS] = "SELECT state, count(*) FROM partitions WHERE job_id = ? GROUP BY state",
    [S_PART_GET] = "SELECT " PART_COLS " FROM partitions p JOIN jobs j ON j.id = p.job_id"
                   " WHERE p.id = ?",
    [S_HAS_QUEUED] = "SELECT 1 FROM partitions WHERE state = 'queued' LIMIT 1",
    [S_OLDEST_QUEUED] = "SELECT p.id FROM partitions p JOIN jobs j ON j.id = p.job_id"
                        " WHERE p.state = 'queued' AND j.state IN ('queued', 'running')"
                        " ORDER BY p.id LIMIT 1",
    [S_CLAIM] = "UPDATE partitions SET state = 'synthesizing', owner_pid = ?, owner_start = ?,"
                " owner_role = 'synthd', slot = ?, attempts = attempts + 1, synth_s = -1,"
                " witness_s = -1, wait_s = -1, start_s = -1, finalize_s = -1, owner_ns = ?5,"
                " owner_boot = ?6 WHERE id = ?4",
    [S_READY] = "UPDATE partitions SET state = 'ready', owner_pid = 0, owner_start = 0,"
                " owner_role = '', synth_s = ?, ready_ns = ?, witness_s = ? WHERE id = ?"
                " AND state = 'synthesizing' AND owner_pid = ? AND owner_start = ?",
    [S_PROVING] = "UPDATE partitions SET state = 'proving', owner_pid = ?, owner_start = ?,"
                  " owner_role = 'gpud', slot = ?, owner_ns = ?5, owner_boot = ?6 WHERE id = ?4",
    /* done: an earlier attempt's error (a dead synthd, a requeue note) is
     * no longer the partition's; `errors` keeps the count */
    [S_DONE] = "UPDATE partitions SET state = 'done', proofs = proofs + ?, owner_pid = 0,"
               " owner_start = 0, owner_role = '', error = '', slot = -1, wait_s = ?, start_s = ?,"
               " finalize_s = ?, done_ns = ?,"
               " synth_s = CASE WHEN ?6 >= 0 AND (synth_s IS NULL OR synth_s < 0)"
               " THEN ?6 ELSE synth_s END,"
               " witness_s = CASE WHEN ?9 >= 0 AND witness_s < 0 THEN ?9 ELSE witness_s END"
               " WHERE id = ?8",
    [S_DONE_AGAIN] = "UPDATE partitions SET proofs = proofs + ? WHERE id = ?",
    [S_ERROR_QUEUE] = "UPDATE partitions SET state = 'queued', errors = errors + 1, error = ?,"
                      " owner_pid = 0, owner_start = 0, owner_role = '', slot = -1,"
                      " queued_ns = ? WHERE id = ?",
    [S_ERROR_FAIL] = "UPDATE partitions SET state = 'failed', errors = errors + 1, error = ?,"
                     " owner_pid = 0, owner_start = 0, owner_role = '', slot = -1,"
                     " done_ns = ? WHERE id = ?",
    [S_REQUEUE] = "UPDATE partitions SET state = 'queued', error = ?, owner_pid = 0,"
                  " owner_start = 0, owner_role = '', slot = -1, queued_ns = ? WHERE id = ?",
    [S_JOB_STATE] = "SELECT state, nparts FROM jobs WHERE id = ?",
    [S_JOB_SET_STATE] = "UPDATE jobs SET state = ?1, error = ?2,"
                        " started_ns = CASE WHEN started_ns = 0 THEN ?3 ELSE started_ns END,"
                        " finished_ns = CASE WHEN ?4 THEN ?3 ELSE finished_ns END WHERE id = ?5",
    /* canceled: no owner any more (the daemon still at work finds the
     * partition canceled and drops it; the pool's slot word is its truth) */
    [S_JOB_CANCEL_PARTS] = "UPDATE partitions SET state = 'canceled', error = ?, done_ns = ?,"
                           " owner_pid = 0, owner_start = 0, owner_role = ''"
                           " WHERE job_id = ? AND state IN ('queued', 'synthesizing', 'ready',"
                           " 'proving')",
    [S_JOB_FAILED_ERR] = "SELECT idx, error FROM partitions WHERE job_id = ?"
                         " AND state = 'failed' ORDER BY idx LIMIT 1",
};

struct zk_ledger {
    sqlite3 *db;
    char *path;
    sqlite3_stmt *st[S_COUNT];
};

static const char *const part_names[] = { "queued", "synthesizing", "ready", "proving",
                                          "done",   "failed",       "canceled" };
static const char *const job_names[] = { "queued", "running", "done", "failed", "canceled" };

const char *zk_part_state_name(int state)
{
    return state >= 0 && state < 7 ? part_names[state] : "?";
}

const char *zk_job_state_name(int state)
{
    return state >= 0 && state < 5 ? job_names[state] : "?";
}

int zk_part_state_parse(const char *s)
{
    for (int i = 0; i < 7; i++)
        if (s && !strcmp(s, part_names[i]))
            return i;
    return -1;
}

int zk_job_state_parse(const char *s)
{
    for (int i = 0; i < 5; i++)
        if (s && !strcmp(s, job_names[i]))
            return i;
    return -1;
}

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* ZK_ELEDGER with "<path>: <sqlite message>". */
static int dberr(zk_ledger *l, struct zk_diag *diag)
{
    return zk_diag_set(diag, l->path, ZK_ELEDGER, "%s", sqlite3_errmsg(l->db));
}

static int exec(zk_ledger *l, const char *q, struct zk_diag *diag)
{
    return sqlite3_exec(l->db, q, NULL, NULL, NULL) == SQLITE_OK ? 0 : dberr(l, diag);
}

/* The cached statement `which`, reset and unbound; NULL (diag set) on failure. */
static sqlite3_stmt *stmt(zk_ledger *l, int which, struct zk_diag *diag)
{
    sqlite3_stmt *s = l->st[which];
    if (!s) {
        if (sqlite3_prepare_v3(l->db, sql[which], -1, SQLITE_PREPARE_PERSISTENT, &s, NULL) !=
            SQLITE_OK) {
            dberr(l, diag);
            return NULL;
        }
        l->st[which] = s;
    }
    sqlite3_reset(s);
    sqlite3_clear_bindings(s);
    return s;
}

/* Steps s: 1 row, 0 done, ZK_ELEDGER error.  Resets s when done or failed. */
static int step(zk_ledger *l, sqlite3_stmt *s, struct zk_diag *diag)
{
    int rc = sqlite3_step(s);
    if (rc == SQLITE_ROW)
        return 1;
    int r = rc == SQLITE_DONE ? 0 : dberr(l, diag);
    sqlite3_reset(s);
    return r;
}

/* Runs a statement that returns no rows; the number of changed rows or < 0. */
static int run(zk_ledger *l, sqlite3_stmt *s, struct zk_diag *diag)
{
    int r = step(l, s, diag);
    if (r > 0) {
        sqlite3_reset(s);
        return 0;
    }
    return r < 0 ? r : sqlite3_changes(l->db);
}

static void text(char *dst, size_t n, sqlite3_stmt *s, int col)
{
    const unsigned char *t = sqlite3_column_text(s, col);
    snprintf(dst, n, "%s", t ? (const char *)t : "");
}

static int begin(zk_ledger *l, struct zk_diag *diag)
{
    return exec(l, "BEGIN IMMEDIATE", diag);
}

/* Commits when r == 0, else rolls back; returns r or the commit's error. */
static int end(zk_ledger *l, int r, struct zk_diag *diag)
{
    if (r == 0) {
        r = exec(l, "COMMIT", diag);
        if (r == 0)
            return 0;
    }
    if (!sqlite3_get_autocommit(l->db))
        sqlite3_exec(l->db, "ROLLBACK", NULL, NULL, NULL);
    return r;
}

/* ---- open / close --------------------------------------------------------- */

static int pragma_int(zk_ledger *l, const char *q, int64_t *ret, struct zk_diag *diag)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(l->db, q, -1, &s, NULL) != SQLITE_OK)
        return dberr(l, diag);
    int r = step(l, s, diag);
    if (r > 0) {
        *ret = sqlite3_column_int64(s, 0);
        r = 0;
    } else if (r == 0) {
        r = zk_diag_set(diag, l->path, ZK_ELEDGER, "%s returned nothing", q);
    }
    sqlite3_finalize(s);
    return r;
}

/* Inspects the file: 0 = empty (new), 1 = a zkslot ledger, or an error. */
static int identify(zk_ledger *l, int64_t *ret_version, struct zk_diag *diag)
{
    int64_t app, ver, tables;
    int rc = sqlite3_exec(l->db, "SELECT 1 FROM sqlite_master LIMIT 1", NULL, NULL, NULL);
    if (rc == SQLITE_NOTADB)
        return zk_diag_set(diag, l->path, ZK_EFORMAT, "not a zkslot ledger (not SQLite)");
    if (rc != SQLITE_OK)
        return dberr(l, diag);
    int r = pragma_int(l, "PRAGMA application_id", &app, diag);
    if (!r)
        r = pragma_int(l, "PRAGMA user_version", &ver, diag);
    if (!r)
        r = pragma_int(l, "SELECT count(*) FROM sqlite_master", &tables, diag);
    if (r)
        return r;
    if (app == 0 && ver == 0 && tables == 0)
        return 0;
    if (app != LEDGER_APP_ID)
        return zk_diag_set(diag, l->path, ZK_EFORMAT,
                           "not a zkslot ledger (an unrelated SQLite database)");
    if (ver > ZK_LEDGER_SCHEMA_VERSION)
        return zk_diag_set(diag, l->path, ZK_EVERSION,
                           "ledger schema version %lld is newer than this zkslot's (%d)",
                           (long long)ver, ZK_LEDGER_SCHEMA_VERSION);
    *ret_version = ver;
    return 1;
}

/* Brings the schema to ZK_LEDGER_SCHEMA_VERSION in one transaction. */
static int migrate(zk_ledger *l, struct zk_diag *diag)
{
    int64_t ver = 0;
    int r = begin(l, diag);
    if (r)
        return r;
    r = identify(l, &ver, diag);   /* again, under the write lock */
    if (r < 0)
        goto out;
    if (r == 0)
        ver = 0;
    r = 0;
    for (int64_t v = ver; v < ZK_LEDGER_SCHEMA_VERSION && !r; v++)
        r = exec(l, migrations[v], diag);
    if (!r && ver < ZK_LEDGER_SCHEMA_VERSION) {
        char q[96];
        snprintf(q, sizeof q, "PRAGMA application_id = %d; PRAGMA user_version = %d",
                 LEDGER_APP_ID, ZK_LEDGER_SCHEMA_VERSION);
        r = exec(l, q, diag);
    }
out:
    return end(l, r, diag);
}

/*
 * Switches to WAL mode.  SQLite does not call the busy handler for this
 * (it needs the only connection), so concurrent first opens retry here
 * for up to busy_ms.
 */
static int set_wal(zk_ledger *l, unsigned busy_ms, struct zk_diag *diag)
{
    for (unsigned waited = 0;; waited += 2) {
        sqlite3_stmt *s;
        if (sqlite3_prepare_v2(l->db, "PRAGMA journal_mode = WAL", -1, &s, NULL) != SQLITE_OK)
            return dberr(l, diag);
        int rc = sqlite3_step(s);
        if (rc == SQLITE_ROW) {
            const char *mode = (const char *)sqlite3_column_text(s, 0);
            int wal = mode && !strcmp(mode, "wal");
            char m[16];
            snprintf(m, sizeof m, "%s", mode ? mode : "?");
            sqlite3_finalize(s);
            if (wal)
                return 0;
            return zk_diag_set(diag, l->path, ZK_ELEDGER,
                               "cannot use WAL mode (journal mode stays %s)", m);
        }
        sqlite3_finalize(s);
        if (rc != SQLITE_BUSY || waited >= busy_ms)
            return dberr(l, diag);
        usleep(2000);
    }
}

int zk_ledger_open(const char *path, unsigned flags, unsigned busy_ms, zk_ledger **ret,
                   struct zk_diag *diag)
{
    struct stat st;
    int64_t ver = 0;
    int r;
    if (stat(path, &st) != 0) {
        if (errno != ENOENT || !(flags & ZK_LEDGER_CREATE))
            return zk_diag_set(diag, path, -errno, "%s", strerror(errno));
        /* made here, not by SQLite (0644 less the umask, 0640 under the
         * units' UMask=0007): 0660 so that operators in the daemons' group
         * (the setgid state directory's) can write it, and the daemons can
         * write a ledger that root or an operator created first */
        int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0660);
        if (fd < 0 && errno != EEXIST)
            return zk_diag_set(diag, path, -errno, "cannot create: %s", strerror(errno));
        if (fd >= 0) {
            int e = fchmod(fd, 0660) ? -errno : 0;
            close(fd);
            if (e)
                return zk_diag_set(diag, path, e, "cannot make it mode 0660: %s", strerror(-e));
        }
    } else if (!S_ISREG(st.st_mode)) {
        return zk_diag_set(diag, path, ZK_EFORMAT, "not a zkslot ledger (not a file)");
    }
    zk_ledger *l = calloc(1, sizeof *l);
    if (!l || !(l->path = strdup(path))) {
        free(l);
        return zk_diag_set(diag, path, -ENOMEM, "out of memory");
    }
    int oflags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX |
                 ((flags & ZK_LEDGER_CREATE) ? SQLITE_OPEN_CREATE : 0);
    if (sqlite3_open_v2(path, &l->db, oflags, ledger_fault_vfs()) != SQLITE_OK) {
        r = l->db ? dberr(l, diag) : zk_diag_set(diag, path, -ENOMEM, "out of memory");
        goto out;
    }
    sqlite3_extended_result_codes(l->db, 0);
    sqlite3_busy_timeout(l->db, busy_ms ? (int)busy_ms : 10000);
    /* one read transaction: the values must come from one snapshot, not
     * from either side of another process's first migration */
    if ((r = exec(l, "BEGIN", diag)) < 0)
        goto out;
    r = identify(l, &ver, diag);
    int e = end(l, r < 0 ? r : 0, diag);
    if (r >= 0 && e < 0)
        r = e;
    if (r < 0)
        goto out;
    if (r == 0 && !(flags & ZK_LEDGER_CREATE)) {
        r = zk_diag_set(diag, path, ZK_EFORMAT, "not a zkslot ledger (empty database)");
        goto out;
    }
    r = set_wal(l, busy_ms ? busy_ms : 10000, diag);
    if (!r)
        r = exec(l, (flags & ZK_LEDGER_SYNC_NORMAL)
                        ? "PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON"
                        : "PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON", diag);
    if (!r && ver < ZK_LEDGER_SCHEMA_VERSION)
        r = migrate(l, diag);
out:
    if (r < 0) {
        zk_ledger_close(l);
        return r;
    }
    *ret = l;
    return 0;
}

void zk_ledger_close(zk_ledger *l)
{
    if (!l)
        return;
    for (int i = 0; i < S_COUNT; i++)
        sqlite3_finalize(l->st[i]);
    sqlite3_close(l->db);
    free(l->path);
    free(l);
}

const char *zk_ledger_path(const zk_ledger *l)
{
    return l->path;
}

/* ---- keys ----------------------------------------------------------------- */

static void key_row(sqlite3_stmt *s, struct zk_ledger_key *k)
{
    memset(k, 0, sizeof *k);
    k->id = sqlite3_column_int64(s, 0);
    text(k->name, sizeof k->name, s, 1);
    text(k->path, sizeof k->path, s, 2);
    text(k->curve, sizeof k->curve, s, 3);
    text(k->hash, sizeof k->hash, s, 4);
    k->file_size = (uint64_t)sqlite3_column_int64(s, 5);
    k->n_vars = (uint64_t)sqlite3_column_int64(s, 6);
    k->n_public = (uint64_t)sqlite3_column_int64(s, 7);
    k->domain_size = (uint64_t)sqlite3_column_int64(s, 8);
    k->added_ns = sqlite3_column_int64(s, 9);
    const char *kind = (const char *)sqlite3_column_text(s, 10);
    k->witgen_kind = kind ? zk_witgen_kind_parse(kind) : ZK_WITGEN_NONE;
    if (k->witgen_kind < 0)
        k->witgen_kind = ZK_WITGEN_NONE;
    text(k->witgen, sizeof k->witgen, s, 11);
    text(k->witgen_hash, sizeof k->witgen_hash, s, 12);
    k->file_dev = (uint64_t)sqlite3_column_int64(s, 13);
    k->file_ino = (uint64_t)sqlite3_column_int64(s, 14);
    k->file_mtime_ns = sqlite3_column_int64(s, 15);
}

int zk_ledger_key_add(zk_ledger *l, struct zk_ledger_key *k, struct zk_diag *diag)
{
    size_t nl = strnlen(k->name, sizeof k->name);
    if (nl == 0 || nl >= sizeof k->name || !memchr(k->path, 0, sizeof k->path) ||
        !memchr(k->curve, 0, sizeof k->curve) || !memchr(k->hash, 0, sizeof k->hash) ||
        !memchr(k->witgen, 0, sizeof k->witgen) ||
        !memchr(k->witgen_hash, 0, sizeof k->witgen_hash) || k->witgen_kind < 0 ||
        k->witgen_kind > ZK_WITGEN_CMD)
        return zk_diag_set(diag, l->path, -EINVAL, "bad key record");
    int64_t now = now_ns();
    sqlite3_stmt *s = stmt(l, S_KEY_BY_NAME, diag);
    int r = s ? begin(l, diag) : ZK_ELEDGER;
    if (r)
        return r;
    sqlite3_bind_text(s, 1, k->name, -1, SQLITE_STATIC);
    r = step(l, s, diag);
    if (r > 0) {
        sqlite3_reset(s);
        r = zk_diag_set(diag, l->path, -EEXIST, "a key named '%s' exists already", k->name);
        goto out;
    }
    if (r < 0 || !(s = stmt(l, S_KEY_ADD, diag))) {
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
    r = run(l, s, diag);
    if (r > 0)
        r = 0;
out:
    r = end(l, r, diag);
    if (!r) {
        k->id = sqlite3_last_insert_rowid(l->db);
        k->added_ns = now;
    }
    return r;
}

static int key_get(zk_ledger *l, int which, const char *name, int64_t id,
                   struct zk_ledger_key *ret, struct zk_diag *diag)
{
    sqlite3_stmt *s = stmt(l, which, diag);
    if (!s)
        return ZK_ELEDGER;
    if (name)
        sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
    else
        sqlite3_bind_int64(s, 1, id);
    int r = step(l, s, diag);
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

int zk_ledger_key_get(zk_ledger *l, const char *name, struct zk_ledger_key *ret,
                      struct zk_diag *diag)
{
    return key_get(l, S_KEY_BY_NAME, name, 0, ret, diag);
}

int zk_ledger_key_get_id(zk_ledger *l, int64_t id, struct zk_ledger_key *ret,
                         struct zk_diag *diag)
{
    return key_get(l, S_KEY_BY_ID, NULL, id, ret, diag);
}

int zk_ledger_key_set_identity(zk_ledger *l, int64_t id, uint64_t dev, uint64_t ino,
                               int64_t mtime_ns, struct zk_diag *diag)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(l->db, "UPDATE keys SET file_dev = ?, file_ino = ?, file_mtime_ns = ?"
                           " WHERE id = ?", -1, &s, NULL))
        return dberr(l, diag);
    sqlite3_bind_int64(s, 1, (int64_t)dev);
    sqlite3_bind_int64(s, 2, (int64_t)ino);
    sqlite3_bind_int64(s, 3, mtime_ns);
    sqlite3_bind_int64(s, 4, id);
    int r = run(l, s, diag);
    sqlite3_finalize(s);
    return r < 0 ? r : 0;
}

int zk_ledger_key_list(zk_ledger *l, int (*fn)(void *ctx, const struct zk_ledger_key *k),
                       void *ctx, struct zk_diag *diag)
{
    sqlite3_stmt *s;
    struct zk_ledger_key k;
    int r;
    if (sqlite3_prepare_v2(l->db, "SELECT " KEY_COLS " FROM keys ORDER BY id", -1, &s, NULL))
        return dberr(l, diag);
    while ((r = step(l, s, diag)) > 0) {
        key_row(s, &k);
        if ((r = fn(ctx, &k)) != 0)
            break;
    }
    sqlite3_finalize(s);
    return r;
}

/* ---- jobs --------------------------------------------------------------------- */

/* Partition counts of job id into count[7]. */
static int job_counts(zk_ledger *l, int64_t id, uint32_t count[7], struct zk_diag *diag)
{
    sqlite3_stmt *s = stmt(l, S_JOB_COUNTS, diag);
    int r;
    if (!s)
        return ZK_ELEDGER;
    memset(count, 0, 7 * sizeof count[0]);
    sqlite3_bind_int64(s, 1, id);
    while ((r = step(l, s, diag)) > 0) {
        int st = zk_part_state_parse((const char *)sqlite3_column_text(s, 0));
        if (st >= 0)
            count[st] = (uint32_t)sqlite3_column_int64(s, 1);
    }
    return r;
}

/*
 * Derives job id's state from its partitions (inside the caller's
 * transaction) after one of them moved to state `to`: a failed partition fails the job and cancels its unfinished
 * partitions; all done -> done; any partition out of queued -> running.
 * Terminal job states (done, failed, canceled) never change here.
 */
static int derive_job(zk_ledger *l, int64_t id, int to, struct zk_diag *diag)
{
    uint32_t count[7];
    sqlite3_stmt *s = stmt(l, S_JOB_STATE, diag);
    if (!s)
        return ZK_ELEDGER;
    sqlite3_bind_int64(s, 1, id);
    int r = step(l, s, diag);
    if (r <= 0)
        return r ? r : zk_diag_set(diag, l->path, -ENOENT, "no job %lld", (long long)id);
    int state = zk_job_state_parse((const char *)sqlite3_column_text(s, 0));
    uint32_t nparts = (uint32_t)sqlite3_column_int64(s, 1);
    sqlite3_reset(s);
    if (state != ZK_JOB_QUEUED && state != ZK_JOB_RUNNING)
        return 0;
    /* a running job changes only when a partition is done or failed: skip
     * the count (O(partitions of the job)) for the other moves */
    if (state == ZK_JOB_RUNNING && to != ZK_PART_DONE && to != ZK_PART_FAILED)
        return 0;
    if ((r = job_counts(l, id, count, diag)) < 0)
        return r;
    int next = state, finished = 0;
    char error[600] = "";
    int64_t now = now_ns();
    if (count[ZK_PART_FAILED]) {
        next = ZK_JOB_FAILED;
        finished = 1;
        if (!(s = stmt(l, S_JOB_FAILED_ERR, diag)))
            return ZK_ELEDGER;
        sqlite3_bind_int64(s, 1, id);
        if ((r = step(l, s, diag)) < 0)
            return r;
        if (r > 0) {
            snprintf(error, sizeof error, "partition %lld failed: %s",
                     (long long)sqlite3_column_int64(s, 0),
                     (const char *)sqlite3_column_text(s, 1));
            sqlite3_reset(s);
        }
        if (!(s = stmt(l, S_JOB_CANCEL_PARTS, diag)))
            return ZK_ELEDGER;
        sqlite3_bind_text(s, 1, "canceled: the job failed", -1, SQLITE_STATIC);
        sqlite3_bind_int64(s, 2, now);
        sqlite3_bind_int64(s, 3, id);
        if ((r = run(l, s, diag)) < 0)
            return r;
    } else if (count[ZK_PART_DONE] == nparts) {
        next = ZK_JOB_DONE;
        finished = 1;
    } else if (count[ZK_PART_QUEUED] < nparts) {
        next = ZK_JOB_RUNNING;
    }
    if (next == state)
        return 0;
    if (!(s = stmt(l, S_JOB_SET_STATE, diag)))
        return ZK_ELEDGER;
    sqlite3_bind_text(s, 1, zk_job_state_name(next), -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 2, error, (int)strnlen(error, 511), SQLITE_TRANSIENT);
    sqlite3_bind_int64(s, 3, now);
    sqlite3_bind_int(s, 4, finished);
    sqlite3_bind_int64(s, 5, id);
    r = run(l, s, diag);
    return r < 0 ? r : 0;
}

/* A job of n partitions: witness[i] is the .wtns path, or with inputs the
 * name the input was read from, and input[i] (len[i] bytes) its text. */
static int job_submit(zk_ledger *l, int64_t key_id, const char *out_dir,
                      const char *const *witness, const char *const *input, const size_t *len,
                      uint32_t n, int64_t *ret_id, struct zk_diag *diag)
{
    if (n == 0)
        return zk_diag_set(diag, l->path, -EINVAL, "a job needs at least one partition");
    if (out_dir && strlen(out_dir) >= 4096)
        return zk_diag_set(diag, l->path, -ENAMETOOLONG, "output directory name too long");
    for (uint32_t i = 0; i < n; i++)
        if (strlen(witness[i]) >= 4096)
            return zk_diag_set(diag, l->path, -ENAMETOOLONG, "witness path too long");
    struct zk_ledger_key key;
    int64_t now = now_ns(), id = 0;
    int r = begin(l, diag);
    if (r)
        return r;
    sqlite3_stmt *s;
    if ((r = zk_ledger_key_get_id(l, key_id, &key, diag)) < 0)
        goto out;
    r = ZK_ELEDGER;
    if (!(s = stmt(l, S_JOB_INSERT, diag)))
        goto out;
    sqlite3_bind_int64(s, 1, key_id);
    sqlite3_bind_int64(s, 2, n);
    sqlite3_bind_text(s, 3, out_dir ? out_dir : "", -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 4, now);
    if ((r = run(l, s, diag)) < 0)
        goto out;
    id = sqlite3_last_insert_rowid(l->db);
    if (!out_dir) {
        char buf[4200];
        const char *slash = strrchr(l->path, '/');
        int dl = slash ? (int)(slash - l->path) : 1;
        snprintf(buf, sizeof buf, "%.*s/jobs/%lld", dl, slash ? l->path : ".", (long long)id);
        r = ZK_ELEDGER;
        if (!(s = stmt(l, S_JOB_SET_OUT, diag)))
            goto out;
        sqlite3_bind_text(s, 1, buf, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(s, 2, id);
        if ((r = run(l, s, diag)) < 0)
            goto out;
    }
    for (uint32_t i = 0; i < n; i++) {
        r = ZK_ELEDGER;
        if (!(s = stmt(l, S_PART_INSERT, diag)))
            goto out;
        sqlite3_bind_int64(s, 1, id);
        sqlite3_bind_int64(s, 2, i);
        sqlite3_bind_text(s, 3, witness[i], -1, SQLITE_STATIC);
        sqlite3_bind_int64(s, 4, now);
        if (input)
            sqlite3_bind_blob64(s, 5, input[i], len[i], SQLITE_STATIC);
        else
            sqlite3_bind_null(s, 5);
        if ((r = run(l, s, diag)) < 0)
            goto out;
    }
    r = 0;
out:
    r = end(l, r, diag);
    if (!r)
        *ret_id = id;
    return r;
}

int zk_ledger_job_submit(zk_ledger *l, int64_t key_id, const char *out_dir,
                         const char *const *witness, uint32_t n, int64_t *ret_id,
                         struct zk_diag *diag)
{
    return job_submit(l, key_id, out_dir, witness, NULL, NULL, n, ret_id, diag);
}

int zk_ledger_job_submit_inputs(zk_ledger *l, int64_t key_id, const char *out_dir,
                                const char *const *name, const char *const *input,
                                const size_t *len, uint32_t n, int64_t *ret_id,
                                struct zk_diag *diag)
{
    for (uint32_t i = 0; i < n; i++)
        if (len[i] > ZK_LEDGER_INPUT_MAX)
            return zk_diag_set(diag, name[i], -E2BIG, "input of %zu bytes: at most %u",
                               len[i], ZK_LEDGER_INPUT_MAX);
    return job_submit(l, key_id, out_dir, name, input, len, n, ret_id, diag);
}

int zk_ledger_part_input(zk_ledger *l, int64_t id, char **ret, size_t *ret_len,
                         struct zk_diag *diag)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(l->db, "SELECT input FROM partitions WHERE id = ?", -1, &s, NULL))
        return dberr(l, diag);
    sqlite3_bind_int64(s, 1, id);
    int r = step(l, s, diag);
    if (r == 0)
        r = zk_diag_set(diag, l->path, -ENOENT, "no partition %lld", (long long)id);
    else if (r > 0 && sqlite3_column_type(s, 0) == SQLITE_NULL)
        r = zk_diag_set(diag, l->path, -ENOENT, "partition %lld has no input (a .wtns one)",
                        (long long)id);
    else if (r > 0) {
        size_t n = (size_t)sqlite3_column_bytes(s, 0);
        char *buf = malloc(n + 1);
        if (!buf) {
            r = zk_diag_set(diag, NULL, -ENOMEM, "out of memory");
        } else {
            if (n)
                memcpy(buf, sqlite3_column_blob(s, 0), n);
            buf[n] = 0;
            *ret = buf;
            *ret_len = n;
            r = 0;
        }
    }
    sqlite3_finalize(s);
    return r;
}

static void job_row(sqlite3_stmt *s, struct zk_ledger_job *j)
{
    memset(j, 0, sizeof *j);
    j->id = sqlite3_column_int64(s, 0);
    j->key_id = sqlite3_column_int64(s, 1);
    text(j->key_name, sizeof j->key_name, s, 2);
    j->nparts = (uint32_t)sqlite3_column_int64(s, 3);
    j->state = zk_job_state_parse((const char *)sqlite3_column_text(s, 4));
    text(j->out_dir, sizeof j->out_dir, s, 5);
    j->submitted_ns = sqlite3_column_int64(s, 6);
    j->started_ns = sqlite3_column_int64(s, 7);
    j->finished_ns = sqlite3_column_int64(s, 8);
    text(j->error, sizeof j->error, s, 9);
}

/* Job id with its counts; call inside a transaction for a consistent view. */
static int job_get(zk_ledger *l, int64_t id, struct zk_ledger_job *ret, struct zk_diag *diag)
{
    struct zk_ledger_job j;
    sqlite3_stmt *s = stmt(l, S_JOB_GET, diag);
    if (!s)
        return ZK_ELEDGER;
    sqlite3_bind_int64(s, 1, id);
    int r = step(l, s, diag);
    if (r == 0)
        return zk_diag_set(diag, l->path, -ENOENT, "no job %lld", (long long)id);
    if (r < 0)
        return r;
    job_row(s, &j);
    sqlite3_reset(s);
    if ((r = job_counts(l, id, j.count, diag)) < 0)
        return r;
    *ret = j;
    return 0;
}

int zk_ledger_job_get(zk_ledger *l, int64_t id, struct zk_ledger_job *ret,
                      struct zk_diag *diag)
{
    int r = exec(l, "BEGIN", diag);
    if (r)
        return r;
    r = job_get(l, id, ret, diag);
    return end(l, r, diag);
}

int zk_ledger_job_list(zk_ledger *l, int (*fn)(void *ctx, const struct zk_ledger_job *j),
                       void *ctx, struct zk_diag *diag)
{
    sqlite3_stmt *s;
    struct zk_ledger_job j;
    int r;
    static const char q[] =
        "SELECT " JOB_COLS ", (SELECT group_concat(state || ':' || n) FROM"
        " (SELECT state, count(*) AS n FROM partitions WHERE job_id = j.id GROUP BY state))"
        " FROM jobs j JOIN keys k ON k.id = j.key_id ORDER BY j.id";
    if (sqlite3_prepare_v2(l->db, q, -1, &s, NULL))
        return dberr(l, diag);
    while ((r = step(l, s, diag)) > 0) {
        job_row(s, &j);
        const char *c = (const char *)sqlite3_column_text(s, 10);
        while (c && *c) {   /* "state:n,state:n" */
            char name[16];
            unsigned long n;
            int used = 0;
            if (sscanf(c, "%15[a-z]:%lu%n", name, &n, &used) != 2)
                break;
            int st = zk_part_state_parse(name);
            if (st >= 0)
                j.count[st] = (uint32_t)n;
            c += used;
            if (*c == ',')
                c++;
        }
        if ((r = fn(ctx, &j)) != 0)
            break;
    }
    sqlite3_finalize(s);
    return r;
}

static void part_row(sqlite3_stmt *s, struct zk_ledger_part *p)
{
    memset(p, 0, sizeof *p);
    p->id = sqlite3_column_int64(s, 0);
    p->job_id = sqlite3_column_int64(s, 1);
    p->key_id = sqlite3_column_int64(s, 2);
    p->index = (uint32_t)sqlite3_column_int64(s, 3);
    text(p->witness, sizeof p->witness, s, 4);
    p->state = zk_part_state_parse((const char *)sqlite3_column_text(s, 5));
    p->attempts = (uint32_t)sqlite3_column_int64(s, 6);
    p->errors = (uint32_t)sqlite3_column_int64(s, 7);
    p->proofs = (uint32_t)sqlite3_column_int64(s, 8);
    p->owner.pid = (int32_t)sqlite3_column_int64(s, 9);
    p->owner.start = (uint64_t)sqlite3_column_int64(s, 10);
    text(p->owner_role, sizeof p->owner_role, s, 11);
    p->slot = (int32_t)sqlite3_column_int64(s, 12);
    p->synth_s = sqlite3_column_double(s, 13);
    p->wait_s = sqlite3_column_double(s, 14);
    p->start_s = sqlite3_column_double(s, 15);
    p->finalize_s = sqlite3_column_double(s, 16);
    p->queued_ns = sqlite3_column_int64(s, 17);
    p->ready_ns = sqlite3_column_int64(s, 18);
    p->done_ns = sqlite3_column_int64(s, 19);
    text(p->error, sizeof p->error, s, 20);
    p->has_input = sqlite3_column_int(s, 21);
    p->witness_s = sqlite3_column_double(s, 22);
    p->owner.pidns = (uint64_t)sqlite3_column_int64(s, 23);
    p->owner.boot = (uint64_t)sqlite3_column_int64(s, 24);
}

int zk_ledger_part_list(zk_ledger *l, int64_t job_id,
                        int (*fn)(void *ctx, const struct zk_ledger_part *p), void *ctx,
                        struct zk_diag *diag)
{
    sqlite3_stmt *s;
    struct zk_ledger_part p;
    int r;
    if (sqlite3_prepare_v2(l->db,
                           "SELECT " PART_COLS " FROM partitions p JOIN jobs j ON j.id ="
                           " p.job_id WHERE p.job_id = ? ORDER BY p.idx",
                           -1, &s, NULL))
        return dberr(l, diag);
    sqlite3_bind_int64(s, 1, job_id);
    while ((r = step(l, s, diag)) > 0) {
        part_row(s, &p);
        if ((r = fn(ctx, &p)) != 0)
            break;
    }
    sqlite3_finalize(s);
    return r;
}

/* Partition id into *ret (inside or outside a transaction). */
static int part_get(zk_ledger *l, int64_t id, struct zk_ledger_part *ret, struct zk_diag *diag)
{
    sqlite3_stmt *s = stmt(l, S_PART_GET, diag);
    if (!s)
        return ZK_ELEDGER;
    sqlite3_bind_int64(s, 1, id);
    int r = step(l, s, diag);
    if (r == 0)
        return zk_diag_set(diag, l->path, -ENOENT, "no partition %lld", (long long)id);
    if (r < 0)
        return r;
    part_row(s, ret);
    sqlite3_reset(s);
    return 0;
}

int zk_ledger_part_get(zk_ledger *l, int64_t id, struct zk_ledger_part *ret,
                       struct zk_diag *diag)
{
    struct zk_ledger_part p;
    int r = part_get(l, id, &p, diag);
    if (!r)
        *ret = p;
    return r;
}

int zk_ledger_job_cancel(zk_ledger *l, int64_t id, struct zk_diag *diag)
{
    struct zk_ledger_job j;
    int r = begin(l, diag);
    if (r)
        return r;
    sqlite3_stmt *s;
    if ((r = job_get(l, id, &j, diag)) < 0)
        goto out;
    if (j.state != ZK_JOB_QUEUED && j.state != ZK_JOB_RUNNING) {
        r = zk_diag_set(diag, l->path, ZK_ESTATE, "job %lld is %s already", (long long)id,
                        zk_job_state_name(j.state));
        goto out;
    }
    int64_t now = now_ns();
    r = ZK_ELEDGER;
    if (!(s = stmt(l, S_JOB_CANCEL_PARTS, diag)))
        goto out;
    sqlite3_bind_text(s, 1, "canceled", -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 2, now);
    sqlite3_bind_int64(s, 3, id);
    if ((r = run(l, s, diag)) < 0)
        goto out;
    r = ZK_ELEDGER;
    if (!(s = stmt(l, S_JOB_SET_STATE, diag)))
        goto out;
    sqlite3_bind_text(s, 1, "canceled", -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 2, "canceled", -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 3, now);
    sqlite3_bind_int(s, 4, 1);
    sqlite3_bind_int64(s, 5, id);
    r = run(l, s, diag);
    if (r > 0)
        r = 0;
out:
    return end(l, r, diag);
}

int zk_ledger_counts(zk_ledger *l, uint64_t count[7], struct zk_diag *diag)
{
    sqlite3_stmt *s;
    uint64_t c[7] = { 0 };
    int r;
    if (sqlite3_prepare_v2(l->db, "SELECT state, count(*) FROM partitions GROUP BY state", -1,
                           &s, NULL))
        return dberr(l, diag);
    while ((r = step(l, s, diag)) > 0) {
        int st = zk_part_state_parse((const char *)sqlite3_column_text(s, 0));
        if (st >= 0)
            c[st] = (uint64_t)sqlite3_column_int64(s, 1);
    }
    sqlite3_finalize(s);
    if (!r)
        memcpy(count, c, sizeof c);
    return r;
}

/* ---- daemons ---------------------------------------------------------------- */

int zk_ledger_has_queued(zk_ledger *l, struct zk_diag *diag)
{
    sqlite3_stmt *s = stmt(l, S_HAS_QUEUED, diag);
    if (!s)
        return ZK_ELEDGER;
    int r = step(l, s, diag);
    if (r > 0)
        sqlite3_reset(s);
    return r;
}

/* Binds ?1 pid, ?2 start, ?5 namespace, ?6 boot of an owner. */
static void bind_owner(sqlite3_stmt *s, const struct zk_proc_id *me)
{
    sqlite3_bind_int64(s, 1, me->pid);
    sqlite3_bind_int64(s, 2, (int64_t)me->start);
    sqlite3_bind_int64(s, 5, (int64_t)me->pidns);
    sqlite3_bind_int64(s, 6, (int64_t)me->boot);
}

static int same_owner(const struct zk_ledger_part *p, const struct zk_proc_id *me)
{
    return p->owner.pid == me->pid && p->owner.start == me->start;
}

static int bad_state(zk_ledger *l, const struct zk_ledger_part *p, struct zk_diag *diag)
{
    if (p->owner.pid)
        return zk_diag_set(diag, l->path, ZK_ESTATE, "partition %lld is %s by %s pid %d",
                           (long long)p->id, zk_part_state_name(p->state), p->owner_role,
                           (int)p->owner.pid);
    return zk_diag_set(diag, l->path, ZK_ESTATE, "partition %lld is %s", (long long)p->id,
                       zk_part_state_name(p->state));
}

int zk_ledger_claim_queued(zk_ledger *l, const struct zk_proc_id *me, int32_t slot,
                           struct zk_ledger_part *ret, struct zk_diag *diag)
{
    struct zk_ledger_part p;
    int r = begin(l, diag);
    if (r)
        return r;
    sqlite3_stmt *s = stmt(l, S_OLDEST_QUEUED, diag);
    if (!s) {
        r = ZK_ELEDGER;
        goto out;
    }
    if ((r = step(l, s, diag)) <= 0) {
        if (r == 0)
            r = zk_diag_set(diag, l->path, -ENOENT, "nothing queued");
        goto out;
    }
    int64_t id = sqlite3_column_int64(s, 0);
    sqlite3_reset(s);
    r = ZK_ELEDGER;
    if (!(s = stmt(l, S_CLAIM, diag)))
        goto out;
    bind_owner(s, me);
    sqlite3_bind_int(s, 3, slot);
    sqlite3_bind_int64(s, 4, id);
    if ((r = run(l, s, diag)) < 0)
        goto out;
    if ((r = part_get(l, id, &p, diag)) < 0)
        goto out;
    r = derive_job(l, p.job_id, ZK_PART_SYNTHESIZING, diag);
out:
    r = end(l, r, diag);
    if (!r)
        *ret = p;
    return r;
}

int zk_ledger_part_ready(zk_ledger *l, int64_t id, const struct zk_proc_id *me,
                         double synth_s, double witness_s, struct zk_diag *diag)
{
    struct zk_ledger_part p;
    int r = begin(l, diag);
    if (r)
        return r;
    sqlite3_stmt *s;
    if ((r = part_get(l, id, &p, diag)) < 0)
        goto out;
    if (p.state != ZK_PART_SYNTHESIZING || !same_owner(&p, me)) {
        r = bad_state(l, &p, diag);
        goto out;
    }
    r = ZK_ELEDGER;
    if (!(s = stmt(l, S_READY, diag)))
        goto out;
    sqlite3_bind_double(s, 1, synth_s);
    sqlite3_bind_int64(s, 2, now_ns());
    sqlite3_bind_double(s, 3, witness_s);
    sqlite3_bind_int64(s, 4, id);
    sqlite3_bind_int64(s, 5, me->pid);
    sqlite3_bind_int64(s, 6, (int64_t)me->start);
    r = run(l, s, diag);
    if (r > 0)
        r = derive_job(l, p.job_id, ZK_PART_READY, diag);
out:
    return end(l, r, diag);
}

/* The pool's word for a partition against the ledger's (gpud's checked
 * move): its key, and for a synthesized one the slot synthd recorded. */
static int slot_matches(zk_ledger *l, const struct zk_ledger_part *p, int64_t key_id,
                        int32_t slot, struct zk_diag *diag)
{
    if (p->key_id != key_id)
        return zk_diag_set(diag, l->path, ZK_ESTATE,
                           "partition %lld belongs to key %lld, the slot says key %lld",
                           (long long)p->id, (long long)p->key_id, (long long)key_id);
    if (p->state == ZK_PART_QUEUED)
        return zk_diag_set(diag, l->path, ZK_ESTATE,
                           "partition %lld is queued: no slot holds its synthesis",
                           (long long)p->id);
    if ((p->state == ZK_PART_SYNTHESIZING || p->state == ZK_PART_READY) && p->slot != slot)
        return zk_diag_set(diag, l->path, ZK_ESTATE,
                           "partition %lld was synthesized into slot %d, not slot %d",
                           (long long)p->id, (int)p->slot, (int)slot);
    return 0;
}

/* queued, synthesizing, ready -> proving; key_id >= 0: slot_matches first. */
static int part_proving(zk_ledger *l, int64_t id, int64_t key_id, const struct zk_proc_id *me,
                        int32_t slot, struct zk_ledger_part *ret, struct zk_diag *diag)
{
    struct zk_ledger_part p;
    int r = begin(l, diag);
    if (r)
        return r;
    sqlite3_stmt *s;
    if ((r = part_get(l, id, &p, diag)) < 0)
        goto out;
    if (key_id >= 0 && (r = slot_matches(l, &p, key_id, slot, diag)) < 0)
        goto out;
    switch (p.state) {
    case ZK_PART_QUEUED:
    case ZK_PART_SYNTHESIZING:
    case ZK_PART_READY:
        break;
    case ZK_PART_PROVING:
        /* ours already, or its owner is dead: take it over */
        if (same_owner(&p, me) || !zk_proc_alive(&p.owner, 64))
            break;
        /* fall through */
    default:
        r = bad_state(l, &p, diag);
        goto out;
    }
    r = ZK_ELEDGER;
    if (!(s = stmt(l, S_PROVING, diag)))
        goto out;
    bind_owner(s, me);
    sqlite3_bind_int(s, 3, slot);
    sqlite3_bind_int64(s, 4, id);
    if ((r = run(l, s, diag)) < 0)
        goto out;
    if ((r = derive_job(l, p.job_id, ZK_PART_PROVING, diag)) < 0)
        goto out;
    r = part_get(l, id, &p, diag);
out:
    r = end(l, r, diag);
    if (!r && ret)
        *ret = p;
    return r;
}

int zk_ledger_part_proving(zk_ledger *l, int64_t id, const struct zk_proc_id *me,
                           int32_t slot, struct zk_ledger_part *ret, struct zk_diag *diag)
{
    return part_proving(l, id, -1, me, slot, ret, diag);
}

int zk_ledger_part_proving_slot(zk_ledger *l, int64_t id, int64_t key_id,
                                const struct zk_proc_id *me, int32_t slot,
                                struct zk_ledger_part *ret, struct zk_diag *diag)
{
    return part_proving(l, id, key_id < 0 ? INT64_MAX : key_id, me, slot, ret, diag);
}

int zk_ledger_part_done(zk_ledger *l, int64_t id, const struct zk_proc_id *me,
                        const struct zk_ledger_timings *t, int duplicate,
                        struct zk_diag *diag)
{
    struct zk_ledger_part p;
    (void)me;   /* any live state is accepted: the proof exists */
    int r = begin(l, diag);
    if (r)
        return r;
    sqlite3_stmt *s;
    int add = 1 + (duplicate ? 1 : 0);
    if ((r = part_get(l, id, &p, diag)) < 0)
        goto out;
    if (p.state == ZK_PART_FAILED || p.state == ZK_PART_CANCELED) {
        r = bad_state(l, &p, diag);
        goto out;
    }
    r = ZK_ELEDGER;
    if (p.state == ZK_PART_DONE) {
        if (!(s = stmt(l, S_DONE_AGAIN, diag)))
            goto out;
        sqlite3_bind_int(s, 1, add);
        sqlite3_bind_int64(s, 2, id);
        r = run(l, s, diag);
        goto out;
    }
    if (!(s = stmt(l, S_DONE, diag)))
        goto out;
    sqlite3_bind_int(s, 1, add);
    sqlite3_bind_double(s, 2, t ? t->wait_s : -1);
    sqlite3_bind_double(s, 3, t ? t->start_s : -1);
    sqlite3_bind_double(s, 4, t ? t->finalize_s : -1);
    sqlite3_bind_int64(s, 5, now_ns());
    sqlite3_bind_double(s, 6, t ? t->synth_s : -1);
    sqlite3_bind_int64(s, 8, id);
    sqlite3_bind_double(s, 9, t ? t->witness_s : -1);
    if ((r = run(l, s, diag)) < 0)
        goto out;
    r = derive_job(l, p.job_id, ZK_PART_DONE, diag);
out:
    return end(l, r > 0 ? 0 : r, diag);
}

int zk_ledger_part_error(zk_ledger *l, int64_t id, const struct zk_proc_id *me,
                         const char *error, uint32_t max_errors, uint32_t max_attempts,
                         int *ret_failed, struct zk_diag *diag)
{
    struct zk_ledger_part p;
    int failed = 0;
    int r = begin(l, diag);
    if (r)
        return r;
    sqlite3_stmt *s;
    if ((r = part_get(l, id, &p, diag)) < 0)
        goto out;
    int mine = p.state == ZK_PART_READY ||
               ((p.state == ZK_PART_SYNTHESIZING || p.state == ZK_PART_PROVING) &&
                same_owner(&p, me));
    if (!mine) {
        r = bad_state(l, &p, diag);
        goto out;
    }
    failed = p.errors + 1 >= max_errors || p.attempts >= max_attempts;
    r = ZK_ELEDGER;
    if (!(s = stmt(l, failed ? S_ERROR_FAIL : S_ERROR_QUEUE, diag)))
        goto out;
    sqlite3_bind_text(s, 1, error ? error : "", (int)strnlen(error ? error : "", 511),
                      SQLITE_TRANSIENT);
    sqlite3_bind_int64(s, 2, now_ns());
    sqlite3_bind_int64(s, 3, id);
    if ((r = run(l, s, diag)) < 0)
        goto out;
    r = derive_job(l, p.job_id, failed ? ZK_PART_FAILED : ZK_PART_QUEUED, diag);
out:
    r = end(l, r, diag);
    if (!r && ret_failed)
        *ret_failed = failed;
    return r;
}

int zk_ledger_part_requeue(zk_ledger *l, int64_t id, enum zk_part_state expect,
                           const struct zk_proc_id *owner, const char *note,
                           struct zk_diag *diag)
{
    struct zk_ledger_part p;
    int r = begin(l, diag);
    if (r)
        return r;
    sqlite3_stmt *s;
    if ((r = part_get(l, id, &p, diag)) < 0)
        goto out;
    /* conditional, like part_ready: only the state the caller saw, and for
     * synthesizing/proving only its own (a live synthd or gpud keeps its
     * partition; a dead owner's is reconcile's to move) */
    int ok = p.state == (int)expect &&
             (expect == ZK_PART_READY ||
              ((expect == ZK_PART_SYNTHESIZING || expect == ZK_PART_PROVING) && owner &&
               same_owner(&p, owner)));
    if (!ok) {
        r = bad_state(l, &p, diag);
        goto out;
    }
    r = ZK_ELEDGER;
    if (!(s = stmt(l, S_REQUEUE, diag)))
        goto out;
    sqlite3_bind_text(s, 1, note ? note : "", (int)strnlen(note ? note : "", 511),
                      SQLITE_TRANSIENT);
    sqlite3_bind_int64(s, 2, now_ns());
    sqlite3_bind_int64(s, 3, id);
    if ((r = run(l, s, diag)) < 0)
        goto out;
    r = derive_job(l, p.job_id, ZK_PART_QUEUED, diag);
out:
    return end(l, r, diag);
}

/* ---- reconciliation --------------------------------------------------------- */

struct cand {
    int64_t id, job_id, ready_ns;
    int state;
    uint32_t attempts;
    struct zk_proc_id owner;
    char role[16];
};

/* The partitions in states `where` (an SQL condition), malloc'd into *ret. */
static int candidates(zk_ledger *l, const char *where, struct cand **ret, size_t *ret_n,
                      struct zk_diag *diag)
{
    char q[512];
    sqlite3_stmt *s;
    struct cand *v = NULL;
    size_t n = 0, cap = 0;
    int r;
    snprintf(q, sizeof q,
             "SELECT id, job_id, ready_ns, state, attempts, owner_pid, owner_start, owner_role,"
             " owner_ns, owner_boot FROM partitions WHERE %s ORDER BY id",
             where);
    if (sqlite3_prepare_v2(l->db, q, -1, &s, NULL))
        return dberr(l, diag);
    while ((r = step(l, s, diag)) > 0) {
        if (n == cap) {
            cap = cap ? 2 * cap : 16;
            struct cand *nv = realloc(v, cap * sizeof *v);
            if (!nv) {
                r = zk_diag_set(diag, l->path, -ENOMEM, "out of memory");
                break;
            }
            v = nv;
        }
        struct cand *c = &v[n++];
        c->id = sqlite3_column_int64(s, 0);
        c->job_id = sqlite3_column_int64(s, 1);
        c->ready_ns = sqlite3_column_int64(s, 2);
        c->state = zk_part_state_parse((const char *)sqlite3_column_text(s, 3));
        c->attempts = (uint32_t)sqlite3_column_int64(s, 4);
        c->owner.pid = (int32_t)sqlite3_column_int64(s, 5);
        c->owner.start = (uint64_t)sqlite3_column_int64(s, 6);
        text(c->role, sizeof c->role, s, 7);
        c->owner.pidns = (uint64_t)sqlite3_column_int64(s, 8);
        c->owner.boot = (uint64_t)sqlite3_column_int64(s, 9);
    }
    sqlite3_finalize(s);
    if (r < 0) {
        free(v);
        return r;
    }
    *ret = v;
    *ret_n = n;
    return 0;
}

/*
 * One conditional move of candidate c to `to` (ready, queued or failed), in
 * its own transaction: applied only if the row still has c's state and
 * owner (and ready_ns for ready).  1 if moved, 0 if the row changed meanwhile.
 */
static int move(zk_ledger *l, const struct cand *c, int to, const char *note,
                struct zk_diag *diag)
{
    static const char q[] =
        "UPDATE partitions SET state = ?1, error = CASE WHEN ?2 IS NULL THEN error ELSE ?2 END,"
        " owner_pid = 0, owner_start = 0, owner_role = '',"
        " slot = CASE WHEN ?1 = 'ready' THEN slot ELSE -1 END,"
        " queued_ns = CASE WHEN ?1 = 'queued' THEN ?3 ELSE queued_ns END,"
        " done_ns = CASE WHEN ?1 = 'failed' THEN ?3 ELSE done_ns END"
        " WHERE id = ?4 AND state = ?5 AND owner_pid = ?6 AND owner_start = ?7"
        " AND ready_ns = ?8";
    sqlite3_stmt *s;
    int r = begin(l, diag);
    if (r)
        return r;
    if (sqlite3_prepare_v2(l->db, q, -1, &s, NULL)) {
        r = dberr(l, diag);
        goto out;
    }
    sqlite3_bind_text(s, 1, zk_part_state_name(to), -1, SQLITE_STATIC);
    if (note)
        sqlite3_bind_text(s, 2, note, (int)strnlen(note, 511), SQLITE_TRANSIENT);
    sqlite3_bind_int64(s, 3, now_ns());
    sqlite3_bind_int64(s, 4, c->id);
    sqlite3_bind_text(s, 5, zk_part_state_name(c->state), -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 6, c->owner.pid);
    sqlite3_bind_int64(s, 7, (int64_t)c->owner.start);
    sqlite3_bind_int64(s, 8, c->ready_ns);
    r = run(l, s, diag);
    sqlite3_finalize(s);
    if (r > 0) {
        int d = derive_job(l, c->job_id, to, diag);
        r = d < 0 ? d : 1;
    }
out:
    if (r >= 0) {
        int e = end(l, 0, diag);
        return e < 0 ? e : r;
    }
    return end(l, r, diag);
}

int zk_ledger_reconcile(zk_ledger *l, int (*slot_holds)(void *ctx, int64_t part_id),
                        void *ctx, int check_ready, uint32_t max_attempts,
                        uint32_t *ret_changed, struct zk_diag *diag)
{
    struct cand *v = NULL, *rv = NULL;
    size_t n = 0, rn = 0;
    uint32_t changed = 0;
    char note[512];
    /* both candidate lists from one snapshot, before slot_holds is asked
     * anything (see ledger.h: callers may scan the pool on the first call) */
    int r = exec(l, "BEGIN", diag);
    if (r)
        return r;
    r = candidates(l, "state IN ('synthesizing', 'proving')", &v, &n, diag);
    if (!r && check_ready)
        r = candidates(l, "state = 'ready'", &rv, &rn, diag);
    r = end(l, r, diag);
    for (size_t i = 0; !r && i < n; i++) {
        const struct cand *c = &v[i];
        if (zk_proc_alive(&c->owner, 64))
            continue;
        int held = slot_holds ? slot_holds(ctx, c->id) : 0;
        if (held < 0) {
            r = zk_diag_set(diag, l->path, held, "slot_holds(%lld) failed", (long long)c->id);
            break;
        }
        int to = held ? ZK_PART_READY : c->attempts >= max_attempts ? ZK_PART_FAILED
                                                                      : ZK_PART_QUEUED;
        if (to == ZK_PART_FAILED)
            snprintf(note, sizeof note, "%s pid %d died while %s; gave up after %u attempts",
                     c->role, (int)c->owner.pid, zk_part_state_name(c->state), c->attempts);
        else
            snprintf(note, sizeof note, "%s pid %d died while %s", c->role, (int)c->owner.pid,
                     zk_part_state_name(c->state));
        r = move(l, c, to, to == ZK_PART_READY ? NULL : note, diag);
        if (r > 0)
            changed++;
        r = r < 0 ? r : 0;
    }
    for (size_t i = 0; !r && i < rn; i++) {
        int held = slot_holds ? slot_holds(ctx, rv[i].id) : 0;
        if (held < 0) {
            r = zk_diag_set(diag, l->path, held, "slot_holds(%lld) failed", (long long)rv[i].id);
            break;
        }
        if (held)
            continue;
        r = move(l, &rv[i], ZK_PART_QUEUED, "its slot was lost: re-queued", diag);
        if (r > 0)
            changed++;
        r = r < 0 ? r : 0;
    }
    free(v);
    free(rv);
    if (!r && ret_changed)
        *ret_changed = changed;
    return r;
}

/* ---- statistics (metrics, top) ---------------------------------------------- */

int zk_ledger_daemon_started(zk_ledger *l, const char *role, const char *instance, int32_t pid,
                             struct zk_diag *diag)
{
    sqlite3_stmt *s;
    int r = begin(l, diag);
    if (r)
        return r;
    if (sqlite3_prepare_v2(l->db,
                           "INSERT INTO daemons (role, instance, starts, last_pid, last_start_ns)"
                           " VALUES (?, ?, 1, ?, ?) ON CONFLICT (role, instance) DO UPDATE SET"
                           " starts = starts + 1, last_pid = excluded.last_pid,"
                           " last_start_ns = excluded.last_start_ns",
                           -1, &s, NULL)) {
        r = dberr(l, diag);
        return end(l, r, diag);
    }
    sqlite3_bind_text(s, 1, role, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 2, instance, -1, SQLITE_STATIC);
    sqlite3_bind_int(s, 3, pid);
    sqlite3_bind_int64(s, 4, now_ns());
    r = step(l, s, diag);
    sqlite3_finalize(s);
    return end(l, r < 0 ? r : 0, diag);
}

int zk_ledger_daemon_list(zk_ledger *l, int (*fn)(void *ctx, const struct zk_ledger_daemon *d),
                          void *ctx, struct zk_diag *diag)
{
    sqlite3_stmt *s;
    int r;
    if (sqlite3_prepare_v2(l->db,
                           "SELECT role, instance, starts, last_pid, last_start_ns FROM daemons"
                           " ORDER BY role, instance",
                           -1, &s, NULL))
        return dberr(l, diag);
    while ((r = step(l, s, diag)) > 0) {
        struct zk_ledger_daemon d;
        memset(&d, 0, sizeof d);
        text(d.role, sizeof d.role, s, 0);
        text(d.instance, sizeof d.instance, s, 1);
        d.starts = (uint64_t)sqlite3_column_int64(s, 2);
        d.last_pid = (int32_t)sqlite3_column_int(s, 3);
        d.last_start_ns = sqlite3_column_int64(s, 4);
        if ((r = fn(ctx, &d)))
            break;
    }
    sqlite3_finalize(s);
    return r;
}

int zk_ledger_totals(zk_ledger *l, struct zk_ledger_totals *ret, struct zk_diag *diag)
{
    struct zk_ledger_totals t;
    sqlite3_stmt *s;
    int r;

    memset(&t, 0, sizeof t);
    if ((r = zk_ledger_counts(l, t.parts, diag)))
        return r;
    if (sqlite3_prepare_v2(l->db,
                           "SELECT coalesce(sum(proofs), 0), coalesce(sum(errors), 0),"
                           " coalesce(sum(attempts), 0) FROM partitions",
                           -1, &s, NULL))
        return dberr(l, diag);
    if ((r = step(l, s, diag)) > 0) {
        t.proofs = (uint64_t)sqlite3_column_int64(s, 0);
        t.errors = (uint64_t)sqlite3_column_int64(s, 1);
        t.attempts = (uint64_t)sqlite3_column_int64(s, 2);
        r = 0;
    }
    sqlite3_finalize(s);
    if (r)
        return r;
    if (sqlite3_prepare_v2(l->db, "SELECT state, count(*) FROM jobs GROUP BY state", -1, &s,
                           NULL))
        return dberr(l, diag);
    while ((r = step(l, s, diag)) > 0) {
        int st = zk_job_state_parse((const char *)sqlite3_column_text(s, 0));
        if (st >= 0)
            t.jobs[st] = (uint64_t)sqlite3_column_int64(s, 1);
    }
    sqlite3_finalize(s);
    if (!r)
        *ret = t;
    return r;
}

int zk_ledger_done_times(zk_ledger *l, int64_t since_ns,
                         int (*fn)(void *ctx, const struct zk_ledger_part_times *t), void *ctx,
                         struct zk_diag *diag)
{
    sqlite3_stmt *s;
    int r;
    if (sqlite3_prepare_v2(l->db,
                           "SELECT synth_s, wait_s, start_s, finalize_s, done_ns, queued_ns"
                           " FROM partitions WHERE state = 'done' AND done_ns >= ? ORDER BY done_ns",
                           -1, &s, NULL))
        return dberr(l, diag);
    sqlite3_bind_int64(s, 1, since_ns);
    while ((r = step(l, s, diag)) > 0) {
        struct zk_ledger_part_times t;
        t.synth_s = sqlite3_column_double(s, 0);
        t.wait_s = sqlite3_column_double(s, 1);
        t.start_s = sqlite3_column_double(s, 2);
        t.finalize_s = sqlite3_column_double(s, 3);
        t.done_ns = sqlite3_column_int64(s, 4);
        t.queued_ns = sqlite3_column_int64(s, 5);
        if ((r = fn(ctx, &t)))
            break;
    }
    sqlite3_finalize(s);
    return r;
}
