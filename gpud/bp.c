/*
 * bp.c -- a bellperson key's partitions in gpud (docs/bellperson.md, "In
 * the pool"): the key's points from its resident store (made from the
 * parameter file, once, by whoever loads it first: `zkslot key add`, `key
 * load` or this gpud), so a restarted gpud reads no parameter file; the
 * partition proved from the .bpa its slot holds (zk/slotfmt.h,
 * ZK_SLOTFMT_BELLPERSON) on the backend's device (the CUDA backend:
 * zk_cuda_bp_prove; else the CPU), self-verified with zkslot's bellperson
 * verifier (always, whatever [gpud] self_verify says), and its result: the 192-byte proof (proof.bin, in the ledger
 * as 384 hex digits) and public.json (the inputs after ONE, as snarkjs
 * writes public signals).
 * Test hook: ZKSLOT_TEST_BP_RS = "R:S" (64 hex digits each) fixes r and s,
 * so that a test compares the proof with bellperson's byte for byte.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/keylocal.h"
#include "gpud.h"
#include "util/testhook.h"
#include "zk/error.h"
#include "zk/keystore.h"
#include "zk/slotfmt.h"
#include "zkcuda.h"

/* The key over the store at path (0), or the store's error with sd set. */
static int bp_from_store(const char *path, const char *hash, unsigned flags, zk_bp_key **ret,
                         struct zk_diag *sd)
{
    zk_keystore *s = NULL;
    int r = zk_keystore_open(path, hash, flags, &s, sd);
    if (!r && (r = zk_keystore_bp_key(s, ret, sd)))
        zk_keystore_close(s);
    return r;
}

int gpud_bp_key_load(struct zkd_key *e, struct zk_diag *diag)
{
    struct zk_ledger_key *lk = &e->lk;   /* its path: this machine's file (keylocal.h) */
    char path[4096], how[4200];
    struct zk_diag sd = { "" };
    zk_bp_key *k = NULL;
    double t0 = zkd_now();
    int r, sr = zk_keystore_path(gpud.cfg.pool, lk->hash, path, sizeof path);

    if (!sr && !(sr = bp_from_store(path, lk->hash, ZK_KEYSTORE_POPULATE, &k, &sd))) {
        snprintf(how, sizeof how, "from its store %s, the parameter file not read", path);
    } else {
        if (sr != -ENOENT && sd.msg[0])
            zkd_log(ZKD_WARN, "key %s: %s: loading it from its file", lk->name, sd.msg);
        /* this machine's file of the key, the one synthd's claims matched */
        if ((r = zkd_key_local_check(gpud.cfg.keys_dir, lk, diag)) ||
            (r = zk_bp_key_open(lk->path, &k, diag)))
            return r;
        snprintf(how, sizeof how, "from its file");
        if (sr == -ENOENT) {
            zk_bp_key *sk = NULL;
            r = zk_keystore_create_bp(path, lk->hash, k, &sd);
            if ((r && r != -EEXIST) || bp_from_store(path, lk->hash, 0, &sk, &sd)) {
                zkd_log(ZKD_WARN, "key %s: no key store: %s", lk->name, sd.msg);
            } else {
                zk_bp_key_close(k);
                k = sk;
                snprintf(how, sizeof how, "from its file, store %s %s", path,
                         r ? "found" : "built");
            }
        }
    }
    struct key_ext *x = calloc(1, sizeof *x);
    if (!x) {
        zk_bp_key_close(k);
        return zk_diag_set(diag, lk->path, -ENOMEM, "out of memory");
    }
    x->bp = k;
    e->ext = x;
    struct zk_bp_key_info in;
    zk_bp_key_get_info(k, &in);
    zkd_log(ZKD_INFO, "key %s: ready in %.3f s (bellperson, 2^%u domain, %u inputs, %u aux; %s)",
            lk->name, zkd_now() - t0, in.log2_domain, in.n_ic, in.n_l, how);
    return 0;
}

/* r and s: the test hook's, else drawn. */
static int bp_rs(uint8_t r[32], uint8_t s[32], struct zk_diag *diag)
{
    const char *h = zk_test_hook("ZKSLOT_TEST_BP_RS");
    if (h) {
        char a[65], b[65];
        if (strlen(h) == 129 && h[64] == ':') {
            memcpy(a, h, 64), a[64] = 0;
            memcpy(b, h + 65, 64), b[64] = 0;
            if (!zk_bp_hex32(a, r) && !zk_bp_hex32(b, s)) {
                zkd_log(ZKD_WARN, "test hook: r and s fixed (ZKSLOT_TEST_BP_RS)");
                return 0;
            }
        }
        return zk_diag_set(diag, "ZKSLOT_TEST_BP_RS", ZK_EBADPARAMS, "not R:S (64 hex digits each)");
    }
    if (zk_bp_random_fr(r) || zk_bp_random_fr(s))
        return zk_diag_set(diag, "getrandom", -errno, "%s", strerror(errno));
    return 0;
}

int gpud_bp_prove(struct item *it, const struct zk_slot *s, struct zk_diag *diag)
{
    const struct key_ext *x = it->key->ext;
    zk_bp_assignment *as = NULL;
    uint8_t r[32], sc[32];
    char name[64];
    int rc;
    snprintf(name, sizeof name, "slot %u's assignment", s->index);
    if ((rc = zk_bp_assignment_parse(s->data + s->region_off[ZK_SLOTFMT_W],
                                     s->region_bytes[ZK_SLOTFMT_W], name, &as, diag)))
        return rc;
    double t0 = zkd_now();
    int cuda = !strcmp(gpud.backend->name, "cuda");
    if (!(rc = bp_rs(r, sc, diag))) {
        if (cuda)
            rc = zk_cuda_bp_prove(gpud.cfg.gpud_device, x->bp, as, r, sc, gpud.nthreads,
                                  it->bp_proof, diag);
        else
            rc = zk_bp_prove(x->bp, as, r, sc, gpud.nthreads, it->bp_proof, diag);
    }
    zk_bp_assignment_free(as);
    if (rc == 0) {
        slot_copied(it);   /* the slot is no longer read */
        zkd_log(ZKD_INFO, "partition %lld: bellperson proof in %.3f s (%s)", (long long)it->p.id,
                zkd_now() - t0, cuda ? "zk_cuda_bp_prove, device" : "CPU");
    }
    return rc;
}

int gpud_bp_finish(const struct item *it, struct zk_ledger_result *res, struct zk_diag *diag)
{
    const struct key_ext *x = it->key->ext;
    uint32_t n = (uint32_t)it->key->lk.n_public;
    memset(res, 0, sizeof *res);
    /* always, whatever [gpud] self_verify says: four pairings, a few ms
     * against the proof's seconds, and a bad Filecoin proof costs more */
    int v = zk_bp_verify(zk_bp_key_vk(x->bp), (const uint8_t *)it->pub, n, it->bp_proof, diag);
    if (v != 1)
        return zk_diag_set(diag, "self-verify", ZK_EREJECTED, "%s",
                           v < 0 ? "could not run" : "rejected the proof (bad assignment or key?)");
    res->pub = zk_groth16_public_to_json(it->pub, n);
    res->proof = malloc(2 * ZK_BP_PROOF_BYTES + 2);
    if (!res->pub || !res->proof) {
        zk_ledger_result_free(res);
        return zk_diag_set(diag, "result", -ENOMEM, "out of memory for the proof's text");
    }
    for (int i = 0; i < ZK_BP_PROOF_BYTES; i++)
        snprintf(res->proof + 2 * i, 3, "%02x", it->bp_proof[i]);
    strcpy(res->proof + 2 * ZK_BP_PROOF_BYTES, "\n");
    res->proof_len = 2 * ZK_BP_PROOF_BYTES + 1;
    res->pub_len = strlen(res->pub);
    return 0;
}
