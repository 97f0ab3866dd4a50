/*
 * statement.c -- a partition's statement digest, and the check of a result
 * against it (contract in zk/statement.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zk/error.h"
#include "zk/keyfile.h"
#include "zk/keystore.h"
#include "zk/sha256.h"
#include "zk/statement.h"
#include "zk/zkey.h"

#define STATEMENT_TAG "zkslot statement 1\n"

void zk_statement(const char *key_hash, const zk_scalar *pub, size_t n,
                  char out[ZK_STATEMENT_LEN])
{
    size_t hl = strnlen(key_hash, 64), len = sizeof STATEMENT_TAG - 1 + hl + 1 + 4 + 32 * n;
    unsigned char *buf = malloc(len ? len : 1), *q = buf;
    if (!buf) {   /* no digest: a recorded one never matches "s1:" alone */
        snprintf(out, ZK_STATEMENT_LEN, "s1:");
        return;
    }
    memcpy(q, STATEMENT_TAG, sizeof STATEMENT_TAG - 1);
    q += sizeof STATEMENT_TAG - 1;
    memcpy(q, key_hash, hl);
    q += hl;
    *q++ = '\n';
    for (int i = 0; i < 4; i++)
        *q++ = (unsigned char)((uint32_t)n >> (8 * i));
    for (size_t i = 0; i < n; i++)
        for (int w = 0; w < 4; w++)
            for (int b = 0; b < 8; b++)
                *q++ = (unsigned char)(pub[i].l[w] >> (8 * b));
    memcpy(out, "s1:", 3);
    zk_sha256_hex(buf, len, out + 3);   /* 64 digits and the NUL: ZK_STATEMENT_LEN */
    free(buf);
}

int zk_result_vk(const struct zk_ledger_key *k, struct zk_groth16_vk *vk, struct zk_diag *diag)
{
    struct zk_zkey z;
    memset(&z, 0, sizeof z);
    memset(vk, 0, sizeof *vk);
    int r = zk_keyfile_check(k, NULL, diag);
    if (!r && !(r = zk_zkey_open(&z, k->path, diag)))
        r = zk_groth16_vk_from_zkey(&z, vk, diag);
    zk_zkey_done(&z);
    return r;
}

/* public.json of partition p (key k) parsed into *ret (n_public values)
 * and its statement checked; name gets the partition's name.  0, or an
 * error with diag as zk_result_check's. */
static int check_public(const struct zk_ledger_key *k, const struct zk_ledger_part *p,
                        const char *pub, zk_scalar **ret, char name[64], struct zk_diag *diag)
{
    char st[ZK_STATEMENT_LEN];
    zk_scalar *v = NULL;
    size_t n = 0;
    struct zk_diag pd = { "" };       /* the parser's, named "public.json" */
    snprintf(name, 64, "job %lld partition %u", (long long)p->job_id, p->index);
    int r = zk_groth16_public_from_json(pub, "public.json", &v, &n, &pd);
    if (r == ZK_EJSON)
        return zk_diag_set(diag, name, ZK_ESTATEMENT, "its public.json does not parse (%s)",
                           pd.msg);
    if (r)
        return zk_diag_set(diag, name, r, "%s", pd.msg);
    if (n != k->n_public) {
        r = zk_diag_set(diag, name, ZK_ESTATEMENT, "its public.json holds %zu signals, key "
                        "%s has %llu: not the proof of this job", n, k->name,
                        (unsigned long long)k->n_public);
        goto out;
    }
    zk_statement(k->hash, v, n, st);
    if (p->statement[0] && strcmp(st, p->statement)) {
        r = zk_diag_set(diag, name, ZK_ESTATEMENT, "its public signals are not the ones "
                        "synthesized (statement %.19s..., recorded %.19s...): not the proof of "
                        "this job", st, p->statement);
        goto out;
    }
    *ret = v;
    return 0;
out:
    free(v);
    return r;
}

int zk_result_check(const struct zk_ledger_key *k, const struct zk_ledger_part *p,
                    const struct zk_groth16_vk *vk, const char *proof, const char *pub,
                    struct zk_diag *diag)
{
    char name[64];
    zk_scalar *v = NULL;
    size_t n = (size_t)k->n_public;
    struct zk_groth16_proof pf;
    struct zk_diag pd = { "" };       /* the parser's, named "proof.json" */
    int valid = 0;
    int r = check_public(k, p, pub, &v, name, diag);
    if (r || !vk)
        goto out;
    if ((r = zk_groth16_proof_from_json(proof, vk->curve, "proof.json", &pf, &pd))) {
        r = zk_diag_set(diag, name, ZK_ESTATEMENT, "its proof.json does not parse (%s)",
                        pd.msg);
        goto out;
    }
    if ((r = zk_groth16_verify(vk, v, n, &pf, &valid)) == 0 && !valid)
        r = zk_diag_set(diag, name, ZK_ESTATEMENT, "its proof does not verify for its public "
                        "signals with key %s", k->name);
    else if (r)
        r = zk_diag_set(diag, name, ZK_ESTATEMENT, "its proof cannot be verified: %s",
                        zk_strerror(r));
out:
    free(v);
    return r;
}

int zk_result_check_bp(const struct zk_ledger_key *k, const struct zk_ledger_part *p,
                       const zk_bp_vk *vk, const char *proof, const char *pub,
                       struct zk_diag *diag)
{
    char name[64], hex[65];
    uint8_t pf[ZK_BP_PROOF_BYTES];
    zk_scalar *v = NULL;
    int r = check_public(k, p, pub, &v, name, diag);
    if (r || !vk)
        goto out;
    int ok = proof && strlen(proof) >= 2 * ZK_BP_PROOF_BYTES &&
             strspn(proof + 2 * ZK_BP_PROOF_BYTES, "\n") == strlen(proof + 2 * ZK_BP_PROOF_BYTES);
    for (int i = 0; ok && i < ZK_BP_PROOF_BYTES; i += 32) {
        memcpy(hex, proof + 2 * i, 64);
        hex[64] = 0;
        ok = zk_bp_hex32(hex, pf + i) == 0;
    }
    if (!ok) {
        r = zk_diag_set(diag, name, ZK_ESTATEMENT, "its proof is not 384 hex digits");
        goto out;
    }
    r = zk_bp_verify(vk, (const uint8_t *)v, (size_t)k->n_public, pf, NULL);
    if (r == 0)
        r = zk_diag_set(diag, name, ZK_ESTATEMENT, "its proof does not verify for its public "
                        "signals with key %s", k->name);
    else if (r < 0)
        r = zk_diag_set(diag, name, ZK_ESTATEMENT, "its proof cannot be verified: %s",
                        zk_strerror(r));
    else
        r = 0;
out:
    free(v);
    return r;
}

int zk_result_key_bp(const struct zk_ledger_key *k, const char *pool_path, zk_bp_key **ret,
                     struct zk_diag *diag)
{
    char path[4096];
    zk_keystore *s = NULL;
    if (zk_keystore_path(pool_path, k->hash, path, sizeof path) == 0 &&
        zk_keystore_open(path, k->hash, 0, &s, NULL) == 0) {
        if (zk_keystore_bp_key(s, ret, NULL) == 0)
            return 0;
        zk_keystore_close(s);
    }
    int r = zk_keyfile_check(k, NULL, diag);
    return r ? r : zk_bp_key_open(k->path, ret, diag);
}
