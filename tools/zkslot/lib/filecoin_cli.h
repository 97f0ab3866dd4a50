/*
 * filecoin_cli.h -- what `zkslot key add --filecoin` and `zkslot submit
 * --filecoin` ask of the Filecoin synthesizer (zkslot-fil-synth,
 * docs/filecoin.md): which parameter files a cache holds, and a provider's
 * input split into one self-contained part per partition.  The program
 * runs as the caller, with the caller's files, never through a shell; its
 * output is read bounded, its last line of errors passed on.
 *
 * Key names are fil-KIND-SIZE (fil-porep-2KiB, fil-window-32GiB): the job
 * names its kind, the input its sector size, and the key is found by both.
 */
#ifndef ZK_TOOLS_FILECOIN_CLI_H
#define ZK_TOOLS_FILECOIN_CLI_H

#include <stddef.h>
#include <stdint.h>

#define FIL_SYNTH_NAME "zkslot-fil-synth"
#define FIL_MSG_MAX 1024

/*
 * The synthesizer's path into dst: `given` (a path, or a name looked up
 * in the generators' fixed PATH), else $ZKSLOT_FIL_SYNTH, else
 * zkslot-fil-synth in that PATH.  0, or -ENOENT with one line in msg.
 */
int fil_synth_find(const char *given, char *dst, size_t n, char *msg, size_t msg_n);

/* "porep", "winning", "window", "snap": 1 if kind is one. */
int fil_kind_valid(const char *kind);

/* The class a storage provider needs for a kind's jobs (zk/priority.h):
 * WinningPoSt critical, WindowPoSt high, PoRep and SnapDeals normal. */
int fil_kind_priority(const char *kind);

/* fil-KIND-LABEL for a sector size in bytes (2048 -> 2KiB, 34359738368 ->
 * 32GiB) into dst; -EINVAL for a size that is not a whole KiB. */
int fil_key_name(const char *kind, uint64_t sector_size, char *dst, size_t n);

/* One circuit whose parameters a cache holds. */
struct fil_circuit {
    char kind[16];
    uint64_t sector_size;
    char params[4096], vk[4096];
};

/*
 * `PROG keys --cache DIR [--sector-size N]` (N 0: the program's default):
 * cb called for each circuit it lists, in order (a non-zero return stops
 * and is returned).  0, or an error with one line in msg (the program's
 * own last line when it failed).
 */
int fil_keys(const char *prog, const char *dir, uint64_t sector_size,
             int (*cb)(void *ctx, const struct fil_circuit *c), void *ctx, char *msg,
             size_t msg_n);

/*
 * `PROG split --kind KIND --input FILE --out-dir DIR`: the input checked
 * whole and written as part files in DIR (made when absent).  Their paths into *parts (malloc'd array of malloc'd
 * strings, *n of them), and the key name its registered proof's sector
 * size gives (fil-KIND-SIZE) into key.  0, or ZK_EREJECTED with the
 * program's one line in msg (a bad input), or another error.
 */
int fil_split(const char *prog, const char *kind, const char *file, const char *dir,
              char ***parts, int *n, char *key, size_t key_n, char *msg, size_t msg_n);

/*
 * fil_split into a private directory it makes, $TMPDIR/zkslot-fil-XXXXXX
 * (else under /tmp; mkdtemp: 0700, a name no one can guess), its path into
 * dir (dir_n bytes; "" when it could not be made: -errno and msg say so).
 * The caller removes it all with fil_split_remove, whatever the outcome.
 */
int fil_split_private(const char *prog, const char *kind, const char *file, char *dir,
                      size_t dir_n, char ***parts, int *n, char *key, size_t key_n, char *msg,
                      size_t msg_n);
/* Removes what fil_split_private made (the parts, the directory) and frees
 * the parts' array. */
void fil_split_remove(const char *dir, char **parts, int n);

/* The key a part file's registered proof names, fil-KIND-SIZE (its
 * sector size), into key.  0, or an error with one line in msg. */
int fil_part_key(const char *kind, const char *path, char *key, size_t key_n, char *msg,
                 size_t msg_n);

/* The key a provider's input names, unsplit: fil-KIND-SIZE from a C1
 * output's SectorSize, or from a PoSt's or an update's registered_proof.
 * 0, or an error with one line in msg naming path. */
int fil_input_key(const char *kind, const char *path, char *key, size_t key_n, char *msg,
                  size_t msg_n);

/* Frees what fil_split returned. */
void fil_parts_free(char **parts, int n);

#endif /* ZK_TOOLS_FILECOIN_CLI_H */
