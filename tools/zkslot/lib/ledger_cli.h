/*
 * ledger_cli.h -- what the ledger subcommands (key, submit, status, wait,
 * result, cancel) share: the options --config FILE, --state-dir DIR and
 * --ledger URL,
 * finding and opening the ledger, job ids, ages.  Every function that
 * fails has already printed one line "zkslot CMD: problem" to stderr.
 *
 * Where the state directory comes from, lowest first: the built-in
 * default, the config file (--config FILE, else $ZKSLOT_CONFIG, else
 * /etc/zkslot/zkslot.conf if it exists), $ZKSLOT_STATE_DIR, --state-dir.
 * The ledger: "<state dir>/ledger.db" unless [ledger] url, $ZKSLOT_LEDGER
 * or --ledger (that order) names another (an SQLite path or a PostgreSQL
 * URL, zk/ledger.h).
 */
#ifndef ZK_TOOLS_LEDGER_CLI_H
#define ZK_TOOLS_LEDGER_CLI_H

#include <getopt.h>
#include <stdint.h>
#include <sys/types.h>

#include "zk/config.h"
#include "zk/ledger.h"

/* getopt_long entries for the common options (values 'C', 'S' and 'L'). */
#define LCLI_OPTIONS                                                              \
    { "config", required_argument, 0, 'C' }, { "state-dir", required_argument, 0, 'S' }, \
    { "ledger", required_argument, 0, 'L' }

struct lcli {
    const char *cmd;              /* "key add", "submit", ...: for messages */
    const char *config_flag;      /* --config, or NULL */
    const char *state_dir_flag;   /* --state-dir, or NULL */
    const char *ledger_flag;      /* --ledger, or NULL */
    int local;                    /* top, metrics --local: this machine's daemons only */
    struct zk_config cfg;         /* after lcli_open */
    char ledger_path[2048];
    zk_ledger *l;
};

/* Takes option `opt` (from getopt_long) if it is a common one: 1, else 0. */
int lcli_option(struct lcli *c, int opt, const char *arg);

/*
 * Reads the config, resolves the state directory (made absolute) and opens
 * the ledger.  `create`: make the directory (mkdir -p) and the ledger when
 * absent; otherwise a missing ledger is "no ledger at PATH (nothing
 * submitted yet?)".  0, or -1 with the message printed (exit code 2).
 * A PostgreSQL ledger whose server cannot be reached ends the command here:
 * one line "zkslot CMD: the ledger's database is unreachable: ..." and exit
 * status LCLI_EXIT_UNREACHABLE, so that scripts can tell it from a refusal
 * (authentication failed, permission denied: the server's reason, exit 2).
 */
#define LCLI_EXIT_UNREACHABLE 4
int lcli_open(struct lcli *c, int create);

/* The first half of lcli_open: the config read, the state directory
 * resolved (made absolute; made with `create`), c->ledger_path set;
 * nothing opened.  0, or -1 with the message printed. */
int lcli_resolve(struct lcli *c, int create);

/* Closes the ledger; accepts an unopened struct. */
void lcli_close(struct lcli *c);

/*
 * mkdir -p path.  Each directory made here gets `mode` (through chmod, so
 * whatever the umask, setgid included, when gid is given) and, with gid not
 * (gid_t)-1, that group first (changing the group may clear the setgid
 * bit); with `sync` its creation is fsynced in its parent.  Directories that
 * exist are left as they are.  0 or -errno, with the directory that failed
 * in `failed` (n bytes; may be NULL).
 */
int lcli_mkdirs_ex(const char *path, mode_t mode, gid_t gid, int sync, char *failed,
                   size_t n);
/* lcli_mkdirs_ex(path, 0755 less the umask, no group, no sync, ...). */
int lcli_mkdirs(const char *path);

/* Parses a job id (a positive decimal).  0, or -1 with the message printed. */
int lcli_job_id(const char *cmd, const char *s, int64_t *ret);

/* Human age/duration of `ns` nanoseconds ("45s", "3m07s", "2h05m", "4d03h") into buf. */
const char *lcli_duration(int64_t ns, char *buf, unsigned n);

/* The ledger's clock in ns (zk_ledger_now_ns: the database's on
 * PostgreSQL) once a ledger was opened (lcli_clock_from), else
 * CLOCK_REALTIME: every age, deadline and wait compared with the ledger's
 * times uses it. */
int64_t lcli_now_ns(void);
/* Takes the ledger's clock from l (the CLI's open does; apid at each open). */
void lcli_clock_from(const zk_ledger *l);

#endif /* ZK_TOOLS_LEDGER_CLI_H */
