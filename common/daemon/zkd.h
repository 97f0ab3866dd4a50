/*
 * zkd.h -- the runtime shared by the daemons (zkslot-synthd, zkslot-gpud):
 * logging, signals, sd_notify, and the recovery pass every daemon runs at
 * start and on its ticks.
 *
 * Unlike the rest of common/ (which never logs or exits), this is the
 * daemons' own layer and is built as the separate library zkdaemon.
 */
#ifndef ZK_DAEMON_ZKD_H
#define ZK_DAEMON_ZKD_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "zk/config.h"
#include "zk/ledger.h"
#include "zk/pool.h"

#ifdef __cplusplus
extern "C" {
#endif

/* syslog priorities, as journald reads them from a "<N>" line prefix */
enum { ZKD_ERR = 3, ZKD_WARN = 4, ZKD_NOTICE = 5, ZKD_INFO = 6, ZKD_DEBUG = 7 };

/* Names the process in log lines; reads ZKSLOT_LOG_LEVEL (err..debug). */
void zkd_log_init(const char *name);
/* The ZKSLOT_LOG_LEVEL value zkd_log_init did not know, or NULL. */
const char *zkd_log_level_bad(void);
/*
 * The daemons' start-up line on the test hooks (util/testhook.h): when
 * any ZKSLOT_TEST_* hook is set, one warning naming them with their
 * values, saying whether they act (a build for tests, or
 * ZKSLOT_TEST_HOOKS=1) or are ignored; nothing when none is set.
 */
void zkd_test_hooks_log(void);
/* One line on stderr: "<N>msg" under journald, else "TIME name[pid]: msg". */
void zkd_log(int prio, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* sd_notify(3) with a printf format; a no-op without libsystemd or
 * NOTIFY_SOCKET.  Returns what sd_notify returned (0 when a no-op). */
int zkd_notify(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* WATCHDOG_USEC for this process, 0 when the watchdog is off. */
uint64_t zkd_watchdog_usec(void);

/*
 * Blocks SIGTERM, SIGINT, SIGQUIT, SIGHUP and SIGPIPE in the calling thread
 * (call it before starting threads, so they inherit the mask) and returns a
 * signalfd for the first four, or -errno.
 */
int zkd_signals_open(void);
/* Reads one pending signal from the signalfd: its number, 0 if none. */
int zkd_signals_read(int fd);

/* How far a daemon has been asked to stop; only ever grows. */
enum { ZKD_RUN = 0, ZKD_FINISH = 1, ZKD_HANDBACK = 2 };
/*
 * Reads every pending signal and raises *stop: SIGTERM -> ZKD_FINISH (a
 * repeat is not a new request), SIGINT/SIGQUIT -> ZKD_HANDBACK, SIGHUP
 * ignored (signals.c says why).  Logs each change; returns 1 if *stop
 * changed.
 */
int zkd_signals_poll(int fd, int *stop);

/*
 * While stopping: STOPPING=1 once (the first call), then STATUS=`status`
 * and WATCHDOG=1 when `healthy` and the watchdog is on, so that systemd
 * neither times out the watchdog nor takes the drain for a hang.  Call it
 * about once a second from the main loop while draining, whatever started
 * the stop (a signal, a lost device, a lost pool).
 */
void zkd_notify_stopping(int healthy, const char *status);

/* What one recovery pass did. */
struct zkd_recovery {
    struct zk_pool_reap_stats reap;
    uint32_t ledger_changed;         /* partitions moved by reconcile */
};

/*
 * The recovery pass: reap the pool (with `reap_flags`, e.g.
 * ZK_POOL_REAP_RESYNC at start), then reconcile the ledger against the
 * slots that hold partitions (READY or CLAIMED).  pool may be NULL (the
 * pool is gone: everything not done goes back to queued).
 */
int zkd_recover(zk_pool *pool, unsigned reap_flags, zk_ledger *l, int check_ready,
                uint32_t max_attempts, struct zkd_recovery *ret, struct zk_diag *diag);

/*
 * 1 when the ledger places the partition slot s's header names, ready, in
 * that very slot and of that key (*lp: its row), else 0 (the header's id
 * may be forged or stale).  For a claimed slot that is given back instead
 * of proved (gpud: a failed checksum; synthd: no gpud): only such a
 * partition is re-queued from ready.
 */
int zkd_slot_ready_part(zk_ledger *l, const struct zk_slot *s, struct zk_ledger_part *lp);

/*
 * Device and inode of the file behind the pool path (following the
 * symlink), to notice a pool destroyed or replaced under a running daemon.
 * -errno when it is gone.
 */
int zkd_pool_identity(const char *path, dev_t *ret_dev, ino_t *ret_ino);

/* CLOCK_MONOTONIC / CLOCK_REALTIME in seconds / nanoseconds. */
double zkd_now(void);
uint64_t zkd_realtime_ns(void);

/* mkdir -p; 0 or -errno. */
int zkd_mkdir_p(const char *path, mode_t mode);


/* ---- what every daemon shares ------------------------------------------------ */

/* Exit status of a daemon whose pool was destroyed or replaced (EX_TEMPFAIL). */
#define ZKD_EXIT_POOL_GONE 75

struct zkd_base {
    char role[16];                   /* "synthd", "gpud": pool attach name, ledger role */
    const struct zk_config *cfg;
    struct zk_proc_id me;            /* this process, as ledger and pool owner */
    zk_pool *pool;
    zk_ledger *l;                    /* the main thread's handle */
    dev_t pool_dev;                  /* identity of the pool file at attach */
    ino_t pool_ino;
    int sfd;                         /* unused by base; for the caller */
};

/*
 * Empties the inputs of ended jobs past [ledger] keep_inputs (purge.c), at
 * most every few seconds; logs what it did.  Called by zkd_base_tick.
 */
void zkd_purge_inputs(struct zkd_base *b);

/*
 * No core dump holds a witness (nodump.c): PR_SET_DUMPABLE 0 and the pool's
 * mapping MADV_DONTDUMP, unless ZKSLOT_DUMPABLE=1 (debugging; logged).
 * 0 or -errno (logged).  zkd_base_open calls it once the pool is attached.
 */
int zkd_nodump(zk_pool *pool);

/* Opens a ledger handle for this thread from cfg (mkdir -p the state dir). */
int zkd_open_ledger(const struct zk_config *cfg, zk_ledger **ret, struct zk_diag *diag);
/*
 * zkd_open_ledger for a thread of a running daemon: while the database is
 * away (ZK_ELEDGER: a PostgreSQL server restarting, refusing connections
 * while it shuts down), the ledger is marked unwritable (logged once, as
 * `what`), *hb (when not NULL) is kept fresh for the watchdog, and the open
 * is retried, backing off 50 ms doubling to 2 s, until it works or *stop is
 * set.  Any other failure (a configuration error) is returned at once.
 */
int zkd_open_ledger_wait(const struct zk_config *cfg, zk_ledger **ret, const char *what,
                         const zk_cancel_flag *stop, atomic_ullong *hb, struct zk_diag *diag);

/*
 * Start of a daemon: its identity, the pool attached (named `role`), the
 * ledger, the start recorded as (role, instance), and the recovery pass
 * with semaphore resync.  Logs what fails (and what recovery did); returns
 * 0 or the error.  Close with zkd_base_close() in both cases.
 * A PostgreSQL ledger whose server is unreachable (ZK_ELEDGER: down or
 * restarting; a server that refuses is an error at once, and so is any
 * failure of a SQLite ledger) is waited for, at the connection and again
 * at the recovery pass (a lossy link drops a connection mid-statement):
 * said once in the log and in STATUS=, retried with a backoff to 2 s,
 * the start timeout extended meanwhile (EXTEND_TIMEOUT_USEC: a farm's
 * machines rebooting with their database do not run into the units' start
 * limit), the signals read from sfd: SIGTERM, SIGINT or SIGQUIT then ends
 * the start, and zkd_base_open returns 1 (the daemon exits 0).
 */
int zkd_base_open(struct zkd_base *b, const char *role, const char *instance,
                  const struct zk_config *cfg, int sfd);

/*
 * The keys this machine claims partitions of, set on handle l
 * (zk_ledger_set_claim_keys) every 2 s (0.25 s while a key's file is
 * being hashed): on every ledger, the keys without a witness generator or
 * whose generator [synthd] generators allows (zk_witgen_allowed); on a
 * shared ledger (PostgreSQL), of those, the ones [gpud] keys names (every
 * key when empty) with a file here whose content is the registered key's
 * (daemon/keylocal.h: the registered path, else [keys] dir; a file is
 * hashed once per identity, in the background, so a changed file is
 * noticed within 2 s and its key claimed, or not, soon after its hash).
 * A key left out, or back, is logged once per reason, process-wide; st is
 * the caller's (one per ledger handle).  On SQLite (one machine) a key's
 * file is judged when it loads, as before: only generators leave keys out.
 */
#define ZKD_CLAIM_KEYS_MAX 256
struct zkd_claim_keys {
    double refreshed_s;              /* 0 = never */
    int hashing;                     /* the last refresh waited for a hash: the next
                                        one comes after 0.25 s, not 2 s */
    int judged;                      /* a refresh read the keys; before that a
                                        shared ledger's handle claims none */
};
void zkd_claim_keys(zk_ledger *l, const struct zk_config *cfg, struct zkd_claim_keys *st);
/* The keys the last refresh left out, for STATUS, into buf (n bytes, at
 * least 32 to say anything): "not claiming keys: k2 (hash differs), k3 (no
 * file)", the names that do not fit counted ("+N more"); "" when none. */
void zkd_claim_keys_status(char *buf, size_t n);
/* Is `name` one of [gpud] keys' comma-separated names (spaces around them
 * ignored; an empty list serves every key)?  gpud's preload and the claims
 * above both ask it. */
int zkd_key_served(const char *list, const char *name);

/*
 * A shared ledger (PostgreSQL): renews this machine's lease ([ledger]
 * lease seconds, the database's clock), logs a lease found lost, and
 * re-queues the partitions of machines whose lease expired.  Nothing on
 * SQLite.  Run at start and by zkd_base_tick.
 */
void zkd_base_lease(struct zkd_base *b);

/*
 * Once a second in the main loop: ZKD_EXIT_POOL_GONE if the pool file was
 * destroyed or replaced (logged), else runs the recovery pass (logging what
 * it moved) and returns 0.
 */
int zkd_base_tick(struct zkd_base *b);

void zkd_base_close(struct zkd_base *b);

/* ---- command line ---------------------------------------------------------- */

/*
 * The main thread's loop of a daemon (loop.c), after READY=1: signals,
 * the once-a-second recovery tick, STATUS= and the watchdog while running;
 * STOPPING=1 and the drain after a stop.  The daemon's side, all called
 * from the loop's thread with `ctx`:
 *   on_stop(how)     a stop was asked (ZKD_FINISH: a SIGTERM or the pool
 *                    gone; ZKD_HANDBACK: SIGINT or SIGQUIT): tell the
 *                    threads (it may also _exit after a hand-back);
 *   tick(n)          optional, once a second while running (n counts);
 *   status(buf)      the STATUS= text while running;
 *   alive(limit_ms)  1 when every thread came around within limit_ms or
 *                    is busy with a partition (then WATCHDOG=1);
 *   drained(...)     while draining: 1 when done (the loop returns), else
 *                    its STATUS text and whether it still makes progress.
 * *stop_flag set by the daemon itself (a lost device) also starts the
 * drain.  Returns 0, or ZKD_EXIT_POOL_GONE when the pool went away.
 */
struct zkd_loop_ops {
    void *ctx;
    const zk_cancel_flag *stop_flag;
    void (*on_stop)(void *ctx, int how);
    void (*tick)(void *ctx, unsigned n);
    void (*status)(void *ctx, char *buf, size_t n);
    int (*alive)(void *ctx, uint64_t limit_ms);
    int (*drained)(void *ctx, uint64_t limit_ms, int *healthy, char *buf, size_t n);
};
int zkd_loop_run(struct zkd_base *b, int sfd, const struct zkd_loop_ops *ops);

/* A daemon flag that sets a configuration option ("--workers" -> [synthd] workers). */
struct zkd_flag {
    const char *flag;                /* "--workers" */
    const char *section, *option;    /* zk_config_set() target */
    const char *arg;                 /* "K" (every flag takes a value) */
    const char *help;
};

/*
 * Builds the configuration of a daemon: defaults, then the file (--config
 * FILE, else $ZKSLOT_CONFIG, else /etc/zkslot/zkslot.conf when present),
 * then the environment, then the flags in `flags` plus the common ones
 * (--config, --pool, --state-dir, --max-attempts, --max-errors).
 * --check-config sets *ret_check; --help prints the usage and returns 1.
 * An unknown ZKSLOT_LOG_LEVEL (zkd_log_level_bad) is an error.
 * Errors are printed on stderr (naming the flag, file and line) and
 * returned as a negative code.
 */
int zkd_parse_args(int argc, char **argv, const char *prog, const struct zkd_flag *flags,
                   size_t nflags, struct zk_config *cfg, int *ret_check);

/* Prints the effective configuration (for --check-config). */
void zkd_print_config(const struct zk_config *cfg, FILE *out);

#ifdef __cplusplus
}
#endif
#endif /* ZK_DAEMON_ZKD_H */
