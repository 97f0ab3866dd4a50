/*
 * key_bp.c -- bellperson parameter files as keys (key_bp.h): the format
 * told from the content, the file checked (and its .vk against it), its
 * points decoded once into the key store beside the pool, and the counts
 * `key show` prints.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "key_bp.h"
#include "zk/error.h"
#include "zk/keystore.h"

int key_bp_format(const char *cmd, const char *path)
{
    char magic[4];
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        fprintf(stderr, "zkslot %s: %s: %s\n", cmd, path, strerror(errno));
        return -1;
    }
    ssize_t n = read(fd, magic, sizeof magic);
    close(fd);
    return n == (ssize_t)sizeof magic && !memcmp(magic, "zkey", 4) ? ZK_KEY_ZKEY
                                                                    : ZK_KEY_BELLPERSON;
}

int key_bp_open(const char *file, const char *vk_path, struct zk_ledger_key *k, zk_bp_key **ret)
{
    struct zk_diag d = { "" };
    struct zk_bp_key_info in;
    zk_bp_key *key = NULL;
    zk_bp_vk *vk = NULL;
    if (zk_bp_key_open(file, &key, &d) != 0) {
        fprintf(stderr, "zkslot key add: %s\n", d.msg);
        return -1;
    }
    if (vk_path && zk_bp_vk_open(vk_path, &vk, &d) != 0) {
        fprintf(stderr, "zkslot key add: %s\n", d.msg);
        zk_bp_key_close(key);
        return -1;
    }
    if (vk && !zk_bp_vk_same(vk, zk_bp_key_vk(key))) {
        fprintf(stderr, "zkslot key add: %s: not the verifying key of %s\n", vk_path, file);
        zk_bp_vk_close(vk);
        zk_bp_key_close(key);
        return -1;
    }
    zk_bp_vk_close(vk);
    zk_bp_key_get_info(key, &in);
    snprintf(k->curve, sizeof k->curve, "%s", zk_curve_name(ZK_CURVE_BLS12_381));
    k->format = ZK_KEY_BELLPERSON;
    k->n_vars = (uint64_t)in.n_ic + in.n_l;
    k->n_public = in.n_ic - 1;
    k->domain_size = (uint64_t)in.n_h + 1;
    *ret = key;
    return 0;
}

int key_bp_store(const char *pool_path, const struct zk_ledger_key *k, const zk_bp_key *key)
{
    char path[4096];
    struct zk_diag d = { "" };
    int r = zk_keystore_path(pool_path, k->hash, path, sizeof path);
    if (r == 0)
        r = zk_keystore_create_bp(path, k->hash, key, &d);
    if (r == -EEXIST) {
        printf("key %s: decoded points already resident in %s\n", k->name, path);
        return 0;
    }
    if (r < 0) {
        fprintf(stderr, "zkslot key add: note: no key store (%s): gpud decodes the file when it "
                "loads the key\n", d.msg[0] ? d.msg : zk_strerror(r));
        return -1;
    }
    printf("key %s: decoded points stored in %s\n", k->name, path);
    return 0;
}

int key_bp_build(const struct zk_ledger_key *k, const char *path, struct zk_diag *d)
{
    zk_bp_key *key = NULL;
    int r = zk_bp_key_open(k->path, &key, d);
    if (r == 0)
        r = zk_keystore_create_bp(path, k->hash, key, d);
    zk_bp_key_close(key);
    return r;
}

/* The counts of the key's store, else of its file, into *in. */
static int key_bp_info(const char *pool_path, const struct zk_ledger_key *k,
                       struct zk_bp_key_info *in, const char **from)
{
    char path[4096];
    struct zk_keystore_info si;
    zk_bp_key *key = NULL;
    if (zk_keystore_path(pool_path, k->hash, path, sizeof path) == 0 &&
        zk_keystore_stat(path, k->hash, &si, NULL) == 0 && si.key_format == ZK_KEY_BELLPERSON) {
        *in = si.bp;
        *from = "store";
        return 0;
    }
    if (zk_bp_key_open(k->path, &key, NULL) != 0)
        return -1;
    zk_bp_key_get_info(key, in);
    zk_bp_key_close(key);
    *from = "file";
    return 0;
}

void key_bp_show(const char *pool_path, const struct zk_ledger_key *k, json_t *o)
{
    struct zk_bp_key_info in;
    const char *from;
    if (key_bp_info(pool_path, k, &in, &from) != 0)
        return;
    json_t *q = json_pack("{s:I, s:I, s:I, s:I, s:I, s:I}", "ic", (json_int_t)in.n_ic, "h",
                          (json_int_t)in.n_h, "l", (json_int_t)in.n_l, "a", (json_int_t)in.n_a,
                          "b_g1", (json_int_t)in.n_b_g1, "b_g2", (json_int_t)in.n_b_g2);
    if (q)
        json_object_set_new(o, "queries", q);
    json_object_set_new(o, "log2_domain", json_integer(in.log2_domain));
    json_object_set_new(o, "counts_from", json_string(from));
}
