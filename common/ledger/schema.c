/*
 * schema.c -- the ledger's file: its schema and migrations, open and close
 * (zk/ledger.h).
 *
 * One SQLite database in WAL mode.  The schema is a list of migrations
 * (migrations[v] brings user_version v to v + 1); application_id marks the
 * file as a zkslot ledger so that an unrelated database is refused instead
 * of being written to.  Every state change elsewhere is one BEGIN IMMEDIATE
 * transaction: the write lock is taken before the partition is read, so two
 * processes never both see it queued.  The SQLite backend's table of
 * operations (struct ledger_ops) is here, next to its open.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ledger/faultvfs.h"
#include "ledger/ledger_internal.h"
#include "zk/error.h"

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
    /* 4 -> 5: a done partition's result (zk_ledger_part_result) */
    "ALTER TABLE partitions ADD COLUMN proof_json BLOB;"
    "ALTER TABLE partitions ADD COLUMN public_json BLOB;",
    /* 5 -> 6: scheduling (docs/scheduling.md): a job's class, deadline and
     * request id, a key's default class (1 = normal) */
    "ALTER TABLE keys ADD COLUMN priority INTEGER NOT NULL DEFAULT 1;"
    "ALTER TABLE jobs ADD COLUMN priority INTEGER NOT NULL DEFAULT 1;"
    "ALTER TABLE jobs ADD COLUMN deadline_ns INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE jobs ADD COLUMN request_id TEXT;"
    "CREATE UNIQUE INDEX jobs_request ON jobs(request_id) WHERE request_id IS NOT NULL;"
    "CREATE INDEX jobs_state ON jobs(state);",
    /* 6 -> 7: a partition's statement, recorded at synthesis, that its
     * result is checked against (zk/statement.h) */
    "ALTER TABLE partitions ADD COLUMN statement TEXT NOT NULL DEFAULT '';",
    /* 7 -> 8: an owner's boot time (zk/proc.h; 0 = not recorded), which lets
     * two views of one boot's id agree */
    "ALTER TABLE partitions ADD COLUMN owner_btime INTEGER NOT NULL DEFAULT 0;",
    /* 8 -> 9: request ids per submitter (docs/scheduling.md): a job's
     * principal ("uid:N", or an API token's "api:NAME", until now the
     * prefix zkslot-apid put in the request id) and the digest of the
     * request a retry must repeat (jobs from before: '', the key only).
     * The old index goes first: two principals' ids may now be equal */
    "DROP INDEX jobs_request;"
    "ALTER TABLE jobs ADD COLUMN principal TEXT NOT NULL DEFAULT '';"
    "ALTER TABLE jobs ADD COLUMN request_digest TEXT NOT NULL DEFAULT '';"
    "UPDATE jobs SET principal = 'api:' || substr(request_id, 5,"
    " instr(substr(request_id, 5), ':') - 1),"
    " request_id = substr(request_id, 5 + instr(substr(request_id, 5), ':'))"
    " WHERE substr(request_id, 1, 4) = 'api:' AND instr(substr(request_id, 5), ':') > 1;"
    /* apid's own ids of tokens' jobs without one ("~" and 16 hex digits) */
    "UPDATE jobs SET request_id = NULL WHERE principal <> '' AND length(request_id) = 17"
    " AND substr(request_id, 1, 1) = '~';"
    "CREATE UNIQUE INDEX jobs_request ON jobs(principal, request_id)"
    " WHERE request_id IS NOT NULL;",
    /* 9 -> 10: a key's file format (zk_key_format_name: 'zkey', or
     * 'bellperson' for a parameter file whose partitions are .bpa) */
    "ALTER TABLE keys ADD COLUMN format TEXT NOT NULL DEFAULT 'zkey';",
};
#define N_MIGRATIONS (sizeof migrations / sizeof migrations[0])
_Static_assert(N_MIGRATIONS == ZK_LEDGER_SCHEMA_VERSION, "one migration per schema version");

/* ---- open / close --------------------------------------------------------- */

static int pragma_int(zk_ledger *l, const char *q, int64_t *ret, struct zk_diag *diag)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(l->db, q, -1, &s, NULL) != SQLITE_OK)
        return ledger_dberr(l, diag);
    int r = ledger_step(l, s, diag);
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
        return ledger_dberr(l, diag);
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
    int r = ledger_begin(l, diag);
    if (r)
        return r;
    r = identify(l, &ver, diag);   /* again, under the write lock */
    if (r < 0)
        goto out;
    if (r == 0)
        ver = 0;
    r = 0;
    for (int64_t v = ver; v < ZK_LEDGER_SCHEMA_VERSION && !r; v++)
        r = ledger_exec(l, migrations[v], diag);
    if (!r && ver < ZK_LEDGER_SCHEMA_VERSION) {
        char q[96];
        snprintf(q, sizeof q, "PRAGMA application_id = %d; PRAGMA user_version = %d",
                 LEDGER_APP_ID, ZK_LEDGER_SCHEMA_VERSION);
        r = ledger_exec(l, q, diag);
    }
out:
    return ledger_end(l, r, diag);
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
            return ledger_dberr(l, diag);
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
            return ledger_dberr(l, diag);
        usleep(2000);
    }
}

/* ---- the SQLite backend --------------------------------------------------- */

static const struct ledger_ops sqlite_ops = {
    .name = "sqlite",
    .close = lsq_close,
    .key_add = lsq_key_add,
    .key_get = lsq_key_get,
    .key_get_id = lsq_key_get_id,
    .key_set_identity = lsq_key_set_identity,
    .key_list = lsq_key_list,
    .job_submit = lsq_job_submit,
    .part_blobs = lsq_part_blobs,
    .part_vet = lsq_part_vet,
    .job_get = lsq_job_get,
    .job_list = lsq_job_list,
    .part_list = lsq_part_list,
    .part_get = lsq_part_get,
    .job_cancel = lsq_job_cancel,
    .counts = lsq_counts,
    .has_queued = lsq_has_queued,
    .claim_queued = lsq_claim_queued,
    .queued_top = lsq_queued_top,
    .job_reprioritize = lsq_job_reprioritize,
    .expire_deadlines = lsq_expire_deadlines,
    .estimate = lsq_estimate,
    .part_ready = lsq_part_ready,
    .part_statement = lsq_part_statement,
    .part_proving = lsq_part_proving,
    .part_done = lsq_part_done,
    .part_error = lsq_part_error,
    .part_requeue = lsq_part_requeue,
    .reconcile = lsq_reconcile,
    .daemon_started = lsq_daemon_started,
    .daemon_list = lsq_daemon_list,
    .totals = lsq_totals,
    .done_times = lsq_done_times,
    .purge_inputs = lsq_purge_inputs,
};

int lsq_open(const char *path, unsigned flags, unsigned busy_ms, zk_ledger **ret,
                   struct zk_diag *diag)
{
    struct stat st;
    int64_t ver = 0;
    int r;
    /* The state directory is its group's to write (3770): a name planted
     * there before the ledger was made, a symlink or a FIFO, is refused
     * (lstat here, SQLITE_OPEN_NOFOLLOW below), never opened */
    if (lstat(path, &st) != 0) {
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
    } else if (S_ISLNK(st.st_mode)) {
        return zk_diag_set(diag, path, ZK_EUNTRUSTED, "a symlink (refused): the ledger is "
                           "opened only at its own name");
    } else if (!S_ISREG(st.st_mode)) {
        return zk_diag_set(diag, path, ZK_EFORMAT, "not a zkslot ledger (not a file)");
    }
    zk_ledger *l = calloc(1, sizeof *l);
    if (!l || !(l->path = strdup(path))) {
        free(l);
        return zk_diag_set(diag, path, -ENOMEM, "out of memory");
    }
    l->ops = &sqlite_ops;
    int oflags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_NOFOLLOW |
                 ((flags & ZK_LEDGER_CREATE) ? SQLITE_OPEN_CREATE : 0);
    if (sqlite3_open_v2(path, &l->db, oflags, ledger_fault_vfs()) != SQLITE_OK) {
        r = l->db ? ledger_dberr(l, diag) : zk_diag_set(diag, path, -ENOMEM, "out of memory");
        goto out;
    }
    sqlite3_extended_result_codes(l->db, 0);
    sqlite3_busy_timeout(l->db, busy_ms ? (int)busy_ms : 10000);
    /* one read transaction: the values must come from one snapshot, not
     * from either side of another process's first migration */
    if ((r = ledger_exec(l, "BEGIN", diag)) < 0)
        goto out;
    r = identify(l, &ver, diag);
    int e = ledger_end(l, r < 0 ? r : 0, diag);
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
        r = ledger_exec(l, (flags & ZK_LEDGER_SYNC_NORMAL)
                        ? "PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON"
                        : "PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON", diag);
    if (!r && ver < ZK_LEDGER_SCHEMA_VERSION)
        r = migrate(l, diag);
out:
    if (r < 0) {
        lsq_close(l);
        return r;
    }
    *ret = l;
    return 0;
}

void lsq_close(zk_ledger *l)
{
    if (!l)
        return;
    for (int i = 0; i < LS_COUNT; i++)
        sqlite3_finalize(l->st[i]);
    sqlite3_close(l->db);
    free(l->path);
    free(l);
}
