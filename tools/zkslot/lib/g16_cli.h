/*
 * g16_cli.h -- helpers shared by the Groth16 subcommands (prove, verify,
 * export-vk, bench prove): loading a key and a witness with one-line
 * errors, whole-file reads and atomic writes.  Every function that fails
 * has already printed one line "zkslot CMD: FILE: problem" to stderr.
 */
#ifndef ZK_TOOLS_G16_CLI_H
#define ZK_TOOLS_G16_CLI_H

#include "zk/groth16.h"

/* Open and load the proving key at path.  0 or a negative code. */
int g16_cli_load_key(const char *cmd, const char *path, unsigned nthreads,
                     struct zk_groth16_key **ret);

/* g16_cli_load_key (for one proof if oneshot: zk_groth16_key_load_oneshot,
 * its points read per MSM, its coefficients released after synthesis),
 * with the key's points from its resident store beside the pool when
 * there is one (found by the file's content hash: zk_keystore_find; a
 * refused store is a warning, then the file); where they came from into
 * `from` ("its file", "its store PATH"). */
int g16_cli_load_key_resident(const char *cmd, const char *path, unsigned nthreads,
                              int oneshot, struct zk_groth16_key **ret, char *from,
                              size_t fn);

/* Read the witness at path, checked against the key, into a malloc'd
 * 64-byte aligned array of n_vars scalars.  0 or a negative code. */
int g16_cli_load_witness(const char *cmd, const char *path, const struct zk_groth16_key *k,
                         zk_scalar **ret);

/* The whole file as a NUL-terminated malloc'd string, or NULL. */
char *g16_cli_read_text(const char *cmd, const char *path);

/* The whole file (any bytes; a NUL appended) malloc'd, its size in *len;
 * NULL with one line printed, also when it is longer than max bytes. */
char *g16_cli_read_file(const char *cmd, const char *path, size_t max, size_t *len);

/* Write text to path atomically (temporary file + rename).  0 or -errno. */
int g16_cli_write_text(const char *cmd, const char *path, const char *text);

/* Parse a positive thread count; 0 on success, -1 (message printed) else. */
int g16_cli_parse_uint(const char *cmd, const char *opt, const char *s, unsigned *ret);

#endif /* ZK_TOOLS_G16_CLI_H */
