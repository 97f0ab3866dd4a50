/*
 * statement.c -- a partition's statement digest, and the check of a result
 * against it (contract in zk/statement.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zk/keyfile.h"
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

int zk_result_check(const struct zk_ledger_key *k, const struct zk_ledger_part *p,
                    const struct zk_groth16_vk *vk, const char *proof, const char *pub,
                    struct zk_diag *diag)
{
    char name[64], st[ZK_STATEMENT_LEN];
    zk_scalar *v = NULL;
    size_t n = 0;
    struct zk_groth16_proof pf;
    struct zk_diag pd = { "" };       /* a parser's, named "public.json"/"proof.json" */
    int valid = 0;
    snprintf(name, sizeof name, "job %lld partition %u", (long long)p->job_id, p->index);
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
    if (!vk)
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
