/*
 * gpud.h -- the state zkslot-gpud's files share, and what each provides.
 *
 *   main.c      flags, startup (pool, ledger, backend, keys), the daemon
 *               loop's callbacks (STATUS, watchdog, stops), shutdown
 *   keys.c      the key cache's load and free for gpud (points for the
 *               backend, the verification key), the keys loaded at start
 *   item.c      one partition between claim and done (struct item) and the
 *               depth-1 queue from the starter to the finisher
 *   starter.c   claim a READY slot -> ledger `proving` -> prove_start ->
 *               hand the item to the finisher
 *   finisher.c  prove_wait/prove_finalize -> self-verify -> output -> `done`
 *   output.c    proof.json / public.json, written through the partition
 *               directory's fd
 *   bp.c        a bellperson key's load, its partition's prove, self-verify
 *               and result
 *
 * One instance of struct gpud (`gpud`, defined in main.c), as redis keeps
 * `server`: set up by main before the threads start; afterwards the
 * threads read the configuration and the handles, and change only the
 * atomics.
 */
#ifndef ZK_GPUD_GPUD_H
#define ZK_GPUD_GPUD_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "backend.h"
#include "daemon/keycache.h"
#include "daemon/zkd.h"
#include "zk/bellperson.h"
#include "zk/groth16.h"
#include "zk/ledger.h"
#include "zk/pool.h"

#define PROG "zkslot-gpud"

/* One partition from its claim to its `done` (or drop). */
struct item {
    struct zk_ledger_part p;
    struct zkd_key *key;
    struct zk_slot slot;
    atomic_int slot_held;             /* taken (exchanged to 0) by whoever releases it */
    void *job;                        /* started, not yet waited for (backend->prove_wait) */
    struct zk_groth16_pending *pending;
    zk_scalar *pub;                   /* n_public public signals (copied from the slot) */
    int bp;                           /* a bellperson key's partition (bp.c) */
    uint8_t bp_proof[ZK_BP_PROOF_BYTES];
    double synth_s, wait_s, start_s, witness_s;
};

/* What gpud keeps per key beside its points (keycache.h: entries never move,
 * so the finisher's it->key stays valid while the starter loads others). */
struct key_ext {
    struct zk_groth16_vk vk;          /* for self-verify */
    zk_bp_key *bp;                    /* a bellperson key (its points, its vk); NULL else */
};

struct gpud {
    struct zk_config cfg;
    const struct gpud_backend *backend;
    struct zkd_base base;             /* pool, ledger, identity, recovery */
    zk_pool *pool;                    /* = base.pool, for the threads */
    struct zk_proc_id me;             /* = base.me */
    unsigned nthreads;
    int claim_node;                   /* slots on this NUMA node first, or ZK_POOL_ANY_NODE */
    struct zkd_keycache keys;
    zk_cancel_flag stop_flag;         /* finish what is in hand, claim no more */
    atomic_int abort_flag;            /* hand back what is in hand */
    atomic_int device_failed;         /* the backend's device failed: exit 1 */
    atomic_ullong n_proved, n_duplicates, n_errors, n_dropped;
    atomic_ullong hb_starter_ms, hb_finisher_ms;   /* heartbeats, for the watchdog */
    atomic_int busy_starter, busy_finisher;
    struct {                          /* starter -> finisher, depth 1 */
        pthread_mutex_t lock;
        pthread_cond_t cond;
        struct item *item;            /* the next partition to finalize */
        int closed;                   /* the starter has stopped */
    } q;
    atomic_llong inflight[3];         /* partition ids in hand, for a hand-back */
};

extern struct gpud gpud;

static inline uint64_t now_ms(void)
{
    return (uint64_t)(zkd_now() * 1e3);
}

/* keys.c */
void gpud_keys_init(void);
/* Loads the registered keys this gpud serves ([gpud] keys); the number
 * loaded, or a negative code when the ledger could not list them (*diag
 * says why; ZK_ELEDGER: the database did not answer, try later). */
int gpud_keys_preload(zk_ledger *l, struct zk_diag *diag);

/* bp.c: a bellperson key into e->ext (its store, else its file: the
 * store then made); 0 or an error with diag. */
int gpud_bp_key_load(struct zkd_key *e, struct zk_diag *diag);
/* bp.c: proves it's partition from the .bpa in slot s (checked against
 * the key) into it->bp_proof, on the backend's device; slot_copied(it)
 * once done.  0 or an error with diag. */
int gpud_bp_prove(struct item *it, const struct zk_slot *s, struct zk_diag *diag);
/* bp.c: self-verify (always) and the result's texts (proof as hex,
 * public.json); 0 or an error with diag. */
int gpud_bp_finish(const struct item *it, struct zk_ledger_result *res, struct zk_diag *diag);

/* item.c */
int slot_still_claimed(long long id);
void item_settle(struct item *it);
void item_release_slot(struct item *it);
void item_free(struct item *it);
void part_failed(zk_ledger *l, const struct zk_ledger_part *p, const char *msg);
void slot_copied(void *ctx);
void device_lost(const struct item *it, const char *msg);
/* The finisher gives up on an empty queue once the starter closed it. */
void queue_close(void);

/* starter.c, finisher.c: the two threads (arg unused). */
void *starter_main(void *arg);
void *finisher_main(void *arg);

/* output.c: the texts of proof.json and public.json into *ret (free with
 * zk_ledger_result_free); 0 or -ENOMEM. */
int proof_texts(const struct item *it, const struct zk_groth16_proof *proof,
                struct zk_ledger_result *ret);
/* output.c: out_dir/<index>/{public,proof}.json from res; *dup = a proof
 * was there. */
int write_proof(const struct zk_ledger_job *j, const struct item *it,
                const struct zk_ledger_result *res, int *dup, struct zk_diag *diag);

#endif /* ZK_GPUD_GPUD_H */
