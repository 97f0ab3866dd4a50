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
    static const char hex[] = "0123456789abcdef";
    size_t hl = strnlen(key_hash, 64), len = sizeof STATEMENT_TAG - 1 + hl + 1 + 4 + 32 * n;
    unsigned char *buf = malloc(len ? len : 1), *q = buf;
    uint8_t md[ZK_SHA256_LEN];
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
    zk_sha256(buf, len, md);
    free(buf);
    memcpy(out, "s1:", 3);
    for (int i = 0; i < ZK_SHA256_LEN; i++) {
        out[3 + 2 * i] = hex[md[i] >> 4];
        out[4 + 2 * i] = hex[md[i] & 15];
    }
    out[ZK_STATEMENT_LEN - 1] = 0;
}

int zk_groth16_vk_from_zkey(const struct zk_zkey *z, struct zk_groth16_vk *vk,
                            struct zk_diag *diag)
{
    const struct zk_zkey_header *h = &z->hdr;
    size_t pb = 0;
    uint64_t n = zk_zkey_section_points(z, ZK_ZKEY_SEC_IC, &pb);
    memset(vk, 0, sizeof *vk);
    if (n != (uint64_t)h->n_public + 1 || pb != h->g1_bytes)
        return zk_diag_set(diag, z->bf.name, ZK_ESECTION_SIZE,
                           "IC section holds %llu points, the header says %u public signals",
                           (unsigned long long)n, h->n_public);
    vk->curve = h->curve;
    vk->n_public = h->n_public;
    memcpy(vk->alpha1, h->alpha1, h->g1_bytes);
    memcpy(vk->beta2, h->beta2, h->g2_bytes);
    memcpy(vk->gamma2, h->gamma2, h->g2_bytes);
    memcpy(vk->delta2, h->delta2, h->g2_bytes);
    /* the vk's points are ZK_G16_G1_WORDS words apart, the file's pb bytes */
    unsigned char *raw = malloc(n * pb);
    if (!raw || !(vk->ic = calloc(n, sizeof *vk->ic))) {
        free(raw);
        return -ENOMEM;
    }
    int r = zk_zkey_read_points(z, ZK_ZKEY_SEC_IC, 0, n, raw, diag);
    for (uint64_t i = 0; !r && i < n; i++)
        memcpy(vk->ic[i], raw + i * pb, pb);
    free(raw);
    if (r)
        zk_groth16_vk_done(vk);
    return r;
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
