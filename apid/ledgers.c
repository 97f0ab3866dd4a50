/*
 * ledgers.c -- ledger handles for the requests in flight (apid.h).  A
 * zk_ledger is used by one thread at a time: each request takes an idle
 * handle (or opens one) and gives it back; a handle that saw the database
 * fail is closed with every idle one, so the next request connects afresh
 * (a PostgreSQL server restarted, a lost connection: 503 until it answers
 * again, then served at once).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apid.h"
#include "zk/error.h"

zk_ledger *apid_ledger_get(struct apid *a, struct apid_reply *r)
{
    zk_ledger *l = NULL;
    struct zk_diag d = { "" };
    pthread_mutex_lock(&a->lock);
    if (a->nidle)
        l = a->idle[--a->nidle];
    pthread_mutex_unlock(&a->lock);
    if (l)
        return l;
    int rc = zk_ledger_open(a->c.ledger_path, 0, 0, &l, &d);
    if (rc == 0 && zk_ledger_set_machine(l, a->c.cfg.machine) < 0) {
        zk_ledger_close(l);
        rc = -EINVAL;
        snprintf(d.msg, sizeof d.msg, "machine name '%s' longer than 63 bytes",
                 a->c.cfg.machine);
    }
    if (rc == 0)
        lcli_clock_from(l);   /* deadlines given as durations on the ledger's clock */
    if (rc < 0) {
        apid_error(r, 503, "ledger_unavailable", "the ledger %s cannot be opened: %s",
                   a->c.ledger_path, d.msg);
        return NULL;
    }
    return l;
}

void apid_ledger_put(struct apid *a, zk_ledger *l, int broken)
{
    if (!l)
        return;
    if (broken) {   /* the idle ones likely share its fate (a server restarted) */
        zk_ledger_close(l);
        pthread_mutex_lock(&a->lock);
        unsigned n = a->nidle;
        void **idle = a->idle;
        a->idle = NULL;
        a->nidle = a->cap_idle = 0;
        pthread_mutex_unlock(&a->lock);
        for (unsigned i = 0; i < n; i++)
            zk_ledger_close(idle[i]);
        free(idle);
        return;
    }
    pthread_mutex_lock(&a->lock);
    if (a->nidle == a->cap_idle) {
        unsigned cap = a->cap_idle ? 2 * a->cap_idle : 8;
        void **n = realloc(a->idle, cap * sizeof *n);
        if (n) {
            a->idle = n;
            a->cap_idle = cap;
        }
    }
    if (a->nidle < a->cap_idle) {
        a->idle[a->nidle++] = l;
        l = NULL;
    }
    pthread_mutex_unlock(&a->lock);
    zk_ledger_close(l);
}

void apid_ledgers_close(struct apid *a)
{
    for (unsigned i = 0; i < a->nidle; i++)
        zk_ledger_close(a->idle[i]);
    free(a->idle);
    a->idle = NULL;
    a->nidle = a->cap_idle = 0;
}

int apid_ledger_error(struct apid_reply *r, int rc, const char *msg)
{
    if (rc == ZK_ELEDGER)
        return apid_error(r, 503, "ledger_unavailable", "the ledger failed: %s", msg);
    return apid_error(r, 500, "internal", "%s", msg[0] ? msg : zk_strerror(rc));
}
