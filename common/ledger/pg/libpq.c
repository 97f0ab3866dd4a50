/*
 * libpq.c -- libpq loaded at the first PostgreSQL ledger open
 * (pg_internal.h: lpg_libpq_load, lpg_pq): its soname opened, every
 * function of LPG_PQ_FUNCTIONS resolved (zk_dl_open, zk_dl_sym), once per
 * process.
 */
#define LPG_PQ_LOADER                  /* the real names here, not the pointers */
#include <pthread.h>
#include <stdio.h>

#include "ledger/pg/pg_internal.h"
#include "zk/error.h"
#include "zk/util.h"

#define LPG_LIBPQ_SONAME "libpq.so.5"

struct lpg_pq_api lpg_pq;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static char load_err[512];             /* "" when loaded */

static void load(void)
{
    void *h = zk_dl_open(LPG_LIBPQ_SONAME, load_err, sizeof load_err);
    if (!h)
        return;
#define LPG_PQ_RESOLVE(f)                                                              \
    if (!load_err[0])                                                                  \
        *(void **)&lpg_pq.f = zk_dl_sym(h, LPG_LIBPQ_SONAME, #f, load_err, sizeof load_err);
    LPG_PQ_FUNCTIONS(LPG_PQ_RESOLVE)
#undef LPG_PQ_RESOLVE
}

int lpg_libpq_load(struct zk_diag *diag)
{
    pthread_once(&load_once, load);
    if (load_err[0])
        return zk_diag_set(diag, "PostgreSQL ledger", ZK_EBADPARAMS,
                           "cannot load the PostgreSQL client library (Debian package libpq5): "
                           "%s", load_err);
    return 0;
}
