/*
 * key_bp.h -- what `zkslot key add` and `key show` do for a bellperson
 * parameter file (key_bp.c; docs/keystore.md, "Bellperson keys").
 */
#ifndef ZK_TOOLS_KEY_BP_H
#define ZK_TOOLS_KEY_BP_H

#include <jansson.h>

#include "zk/bellperson.h"
#include "zk/ledger.h"

/* What the file at path is by its content: ZK_KEY_ZKEY (a snarkjs .zkey:
 * its magic) or ZK_KEY_BELLPERSON (anything else, checked as a parameter
 * file), or -1 with the reason printed (cmd: "key add"). */
int key_bp_format(const char *cmd, const char *path);

/* Opens and checks the parameter file `file` (every count, every point's
 * encoding and the head's points on the curve and in the subgroup) and
 * vk (NULL: the verifying key at the file's head, else a .vk that must be
 * the same); k's curve, sizes and format from it.  0 with *ret the key, or
 * -1 with one line naming the file printed. */
int key_bp_open(const char *file, const char *vk, struct zk_ledger_key *k, zk_bp_key **ret);

/* Decodes key into the store of k's hash beside the pool at pool_path
 * (one already there is kept).  Prints what it did; 0, or -1 with the
 * reason printed (the key is registered anyway: gpud builds the store). */
int key_bp_store(const char *pool_path, const struct zk_ledger_key *k, const zk_bp_key *key);

/* `key load`: the store of the registered bellperson key k at path, built
 * from its file.  0, or negative with d set. */
int key_bp_build(const struct zk_ledger_key *k, const char *path, struct zk_diag *d);

/* `key show`: o gets the counts of each query and the domain, from the
 * key's store when resident, else from its file; nothing on failure. */
void key_bp_show(const char *pool_path, const struct zk_ledger_key *k, json_t *o);

#endif /* ZK_TOOLS_KEY_BP_H */
