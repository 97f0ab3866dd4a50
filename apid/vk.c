/*
 * vk.c -- the verification key of GET /v1/keys/{name}, as snarkjs's
 * vk.json (zk_groth16_vk_to_json, what `zkslot export-vk` writes).
 *
 * Read from the key's file on this machine (only its point sections),
 * once per key content: the text is kept by the key's content hash, so a
 * key file replaced under the same name (a new hash in the ledger) is read
 * again.  The file must be the one registered (zk_keyfile_check); where it
 * is not here (a client machine of a shared ledger) or does not match,
 * the key is answered with "vk": null and the reason in "vk_error"; so is
 * a bellperson key, whose verifying key is no snarkjs vk.json.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apid.h"
#include "zk/groth16.h"
#include "zk/keyfile.h"
#include "zk/zkey.h"

#define VK_CACHE_MAX 64

static struct {
    pthread_mutex_t lock;
    char hash[VK_CACHE_MAX][33];
    char *text[VK_CACHE_MAX];
    unsigned n;
} cache = { PTHREAD_MUTEX_INITIALIZER, { { 0 } }, { 0 }, 0 };

/* The vk.json text of key k from its file (malloc'd), or NULL with why. */
static char *vk_read(const struct zk_ledger_key *k, char *why, size_t n)
{
    struct zk_zkey z;
    struct zk_diag d = { "" };
    struct zk_groth16_key *key = NULL;
    struct zk_groth16_vk vk;
    struct zk_groth16_load_opts o = { ZK_G16_LOAD_POINTS, NULL, NULL, 1 };
    char *text = NULL;
    memset(&z, 0, sizeof z);
    memset(&vk, 0, sizeof vk);
    if (zk_keyfile_check(k, NULL, &d) < 0 || zk_zkey_open(&z, k->path, &d) < 0 ||
        zk_groth16_key_load_opts(&z, &o, &d, &key) < 0)
        snprintf(why, n, "%s", d.msg);
    else if (zk_groth16_vk_from_key(key, &vk) < 0 || !(text = zk_groth16_vk_to_json(&vk)))
        snprintf(why, n, "%s: the verification key could not be made", k->path);
    zk_groth16_vk_done(&vk);
    zk_groth16_key_free(key);
    zk_zkey_done(&z);
    return text;
}

json_t *apid_key_vk(const struct zk_ledger_key *k, char *why, size_t n)
{
    char *text = NULL;
    json_error_t je;
    if (k->format == ZK_KEY_BELLPERSON) {
        snprintf(why, n, "a bellperson key: its verifying key is bellperson's .vk (filecoin-"
                 "proofs' own verifiers read it), not snarkjs's vk.json");
        return NULL;
    }
    pthread_mutex_lock(&cache.lock);
    for (unsigned i = 0; i < cache.n && !text; i++)
        if (!strcmp(cache.hash[i], k->hash))
            text = strdup(cache.text[i]);
    pthread_mutex_unlock(&cache.lock);
    if (!text) {
        if (!(text = vk_read(k, why, n)))
            return NULL;
        pthread_mutex_lock(&cache.lock);
        if (cache.n < VK_CACHE_MAX) {
            snprintf(cache.hash[cache.n], sizeof cache.hash[0], "%s", k->hash);
            if ((cache.text[cache.n] = strdup(text)))
                cache.n++;
        }
        pthread_mutex_unlock(&cache.lock);
    }
    json_t *o = json_loads(text, 0, &je);
    free(text);
    if (!o)
        snprintf(why, n, "the verification key is not JSON: %s", je.text);
    return o;
}
