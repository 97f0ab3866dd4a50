/*
 * cmd_prove.c -- `zkslot prove KEY.zkey WITNESS.wtns PROOF.json PUBLIC.json
 * [--threads T]` (rapidsnark's argument order): one Groth16 proof with
 * fresh blinding, written as snarkjs's proof.json and public.json.
 *
 * With `--input INPUT.json --witness-gen PATH` (or --witness-cmd CMD) in
 * place of the witness, the circuit's witness generator makes it first
 * (what `snarkjs groth16 fullprove` does), in a private temporary
 * directory removed afterwards.  A rejected input prints the generator's
 * own message.
 *
 * The key's points come from its resident store beside the pool when
 * there is one (`zkslot key load`, found by the file's content hash:
 * docs/keystore.md).  --verbose says where they came from, then the
 * seconds of each phase of the whole command (key, witness, proof,
 * output): what a benchmark against another prover compares.
 *
 * --precompute none|h|all [--table-factor F]: builds the key's MSM tables
 * (zk_groth16_key_precompute) before proving, unless the key already has
 * them; in a one-shot process their build costs more than it saves: they
 * pay where the key stays loaded (docs/arithmetic.md, MSM tables).
 *
 * The two files are written atomically and durably (temporary file,
 * fsync, rename, fsync of the directory; common/util/atomicfile.c):
 * public.json, known once the witness is read, is written and synced on a
 * second thread while the proof is computed, and both are renamed into
 * place after the proof's own sync, with one sync of their directory
 * (out_files): the four syncs of two zk_write_atomic calls cost 10-30 ms
 * of the command's wall time on a busy disk.  Until then the public file
 * is a temporary file beside its name, removed when proving fails.
 *
 * Exit 0 on success, 2 on any error (one line naming the file).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "g16_cli.h"
#include "zk/error.h"
#include "zk/util.h"
#include "zk/witgen.h"

/* The witness of input `in` made by generator `gen` into a fresh temporary
 * directory: its path in wtns (the caller unlinks it and rmdirs dir). */
static int make_witness(const char *in, const char *gen, int is_cmd, char *dir, size_t dn,
                        char *wtns, size_t wn)
{
    struct zk_witgen g;
    struct zk_witgen_result res;
    struct zk_diag d = { "" };
    char *text = g16_cli_read_text("prove", in);
    if (!text)
        return -1;
    int r = zk_input_check(text, strlen(text), in, &d);
    free(text);
    if (r < 0 || zk_witgen_resolve(gen, is_cmd, &g, &d) < 0) {
        fprintf(stderr, "zkslot prove: %s\n", d.msg);
        return -1;
    }
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, dn, "%s/zkslot-prove-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        fprintf(stderr, "zkslot prove: %s: %s\n", dir, strerror(errno));
        return -1;
    }
    snprintf(wtns, wn, "%s/witness.wtns", dir);
    r = zk_witgen_run(&g, in, wtns, NULL, NULL, &res, &d);
    if (r < 0) {
        fprintf(stderr, "zkslot prove: %s: %s%s%s\n", in, d.msg, res.output[0] ? ": " : "",
                res.output);
        unlink(wtns);
        rmdir(dir);
        return -1;
    }
    return 0;
}

/* The public file, written and synced on a thread of its own while the
 * proof is computed: text into f (begun), rc its result (0 or -errno). */
struct out_public {
    struct zk_atomic_file f;
    const char *text;
    int rc;
};

static void *out_public_run(void *arg)
{
    struct out_public *o = arg;
    if (!(o->rc = zk_atomic_write(&o->f, o->text, strlen(o->text))))
        o->rc = zk_atomic_sync(&o->f);
    return NULL;
}

/* 1 if paths a and b name the same file (same last component in the same
 * directory): out_files then writes them one after the other as before. */
static int out_same_file(const char *a, const char *b)
{
    char da[4096], db[4096];
    struct stat sa, sb;
    const char *ba = strrchr(a, '/'), *bb = strrchr(b, '/');
    if (strcmp(ba ? ba + 1 : a, bb ? bb + 1 : b))
        return 0;
    if (zk_path_dir(a, da, sizeof da) || zk_path_dir(b, db, sizeof db) || stat(da, &sa) ||
        stat(db, &sb))
        return 1;                 /* cannot tell: as if the same */
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int cmd_prove(int argc, char **argv)
{
    const char *pos[4], *input = NULL, *gen = NULL;
    unsigned npos = 0, nthreads = 0, factor = ZK_G16_TABLE_FACTOR_DEFAULT;
    enum zk_groth16_precompute pre = ZK_G16_PRECOMPUTE_NONE;
    int gen_is_cmd = 0, verbose = 0;
    char from[4200];
    char tmpdir[4096] = "", wtns[4200] = "";
    struct zk_groth16_key *k = NULL;
    struct zk_groth16_proof proof;
    zk_scalar *w = NULL;
    char *pj = NULL, *uj = NULL;
    struct out_public pub = { .f = { -1, -1, "", "" } };
    struct zk_atomic_file prf = { -1, -1, "", "" };
    pthread_t pub_thread;
    int pub_started = 0, rc, ret = 2;
    double t0 = zk_now_s(), t_key, t_wit, t_prove;

    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
            if (g16_cli_parse_uint("prove", "--threads", argv[++i], &nthreads))
                return 2;
        } else if (!strncmp(argv[i], "--threads=", 10)) {
            if (g16_cli_parse_uint("prove", "--threads", argv[i] + 10, &nthreads))
                return 2;
        } else if (!strcmp(argv[i], "--precompute") && i + 1 < argc) {
            if (zk_groth16_precompute_parse(argv[++i], &pre)) {
                fprintf(stderr, "zkslot prove: --precompute: none, h or all, not '%s'\n",
                        argv[i]);
                return 2;
            }
        } else if (!strcmp(argv[i], "--table-factor") && i + 1 < argc) {
            if (g16_cli_parse_uint("prove", "--table-factor", argv[++i], &factor))
                return 2;
        } else if (!strcmp(argv[i], "--input") && i + 1 < argc) {
            input = argv[++i];
        } else if ((!strcmp(argv[i], "--witness-gen") || !strcmp(argv[i], "--witness-cmd")) &&
                   i + 1 < argc) {
            if (gen) {
                fprintf(stderr, "zkslot prove: one of --witness-gen and --witness-cmd\n");
                return 2;
            }
            gen_is_cmd = !strcmp(argv[i], "--witness-cmd");
            gen = argv[++i];
        } else if (!strcmp(argv[i], "--verbose")) {
            verbose = 1;
        } else if (!strcmp(argv[i], "--help")) {
            npos = 99;
            break;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "zkslot prove: unknown option '%s'\n", argv[i]);
            return 2;
        } else if (npos < 4) {
            pos[npos++] = argv[i];
        } else {
            npos = 5;
        }
    }
    if (npos != (input ? 3u : 4u) || !input != !gen) {
        fprintf(stderr, "usage: zkslot prove KEY.zkey WITNESS.wtns PROOF.json PUBLIC.json "
                        "[--threads T] [--verbose]\n"
                        "       zkslot prove KEY.zkey --input INPUT.json --witness-gen PATH "
                        "PROOF.json PUBLIC.json [--threads T]\n"
                        "  --precompute none|h|all [--table-factor F]  MSM tables first\n"
                        "  --witness-gen PATH  circom's C++ generator, .wasm or NAME_js/ folder;\n"
                        "  --witness-cmd CMD   or any generator: 'PROGRAM {input} {output}'\n");
        return npos == 99 ? 0 : 2;
    }
    if (input) {   /* KEY PROOF PUBLIC: the witness slot is the generated file */
        pos[3] = pos[2];
        pos[2] = pos[1];
        pos[1] = wtns;
    }
    /* from the file, one proof: its points read per MSM (less memory at
     * the peak), unless tables are to be built from them */
    if (g16_cli_load_key_resident("prove", pos[0], nthreads, pre == ZK_G16_PRECOMPUTE_NONE, &k,
                                  from, sizeof from))
        goto out;
    t_key = zk_now_s();
    if (verbose)
        fprintf(stderr, "zkslot prove: %s: the key's points from %s\n", pos[0], from);
    if (pre != ZK_G16_PRECOMPUTE_NONE && !zk_groth16_key_table(k, ZK_G16_MSM_H) &&
        (rc = zk_groth16_key_precompute(k, pre, factor, nthreads))) {
        fprintf(stderr, "zkslot prove: %s: --precompute: %s\n", pos[0], zk_strerror(rc));
        goto out;
    }
    if (input && make_witness(input, gen, gen_is_cmd, tmpdir, sizeof tmpdir, wtns, sizeof wtns))
        goto out;
    if (g16_cli_load_witness("prove", pos[1], k, &w))
        goto out;
    t_wit = zk_now_s();
    if (!(uj = zk_groth16_public_to_json(w + 1, zk_groth16_key_header(k)->n_public))) {
        fprintf(stderr, "zkslot prove: out of memory\n");
        goto out;
    }
    if (!out_same_file(pos[2], pos[3])) {
        if ((rc = zk_atomic_begin(&pub.f, pos[3], 0644))) {
            fprintf(stderr, "zkslot prove: %s: %s\n", pos[3], strerror(-rc));
            goto out;
        }
        pub.text = uj;
        if (pthread_create(&pub_thread, NULL, out_public_run, &pub) == 0)
            pub_started = 1;
        else
            out_public_run(&pub);
    }
    if ((rc = zk_groth16_prove(k, w, nthreads, &proof))) {
        if (zk_groth16_key_error(k))  /* a read of the key's file during the proof */
            fprintf(stderr, "zkslot prove: %s\n", zk_groth16_key_error(k));
        else
            fprintf(stderr, "zkslot prove: %s: proving failed: %s\n", pos[0], zk_strerror(rc));
        goto out;
    }
    t_prove = zk_now_s();
    if (!(pj = zk_groth16_proof_to_json(&proof))) {
        fprintf(stderr, "zkslot prove: out of memory\n");
        goto out;
    }
    if (!pub.text) {              /* one file named twice: as two writes */
        if (g16_cli_write_text("prove", pos[2], pj) || g16_cli_write_text("prove", pos[3], uj))
            goto out;
    } else {
        struct zk_atomic_file *both[2] = { &prf, &pub.f };
        size_t failed = 0;
        if ((rc = zk_atomic_begin(&prf, pos[2], 0644))) {
            fprintf(stderr, "zkslot prove: %s: %s\n", pos[2], strerror(-rc));
            goto out;
        }
        rc = zk_atomic_write(&prf, pj, strlen(pj));
        if (pub_started)
            pthread_join(pub_thread, NULL);
        pub_started = 0;
        const char *bad = rc ? pos[2] : pub.rc ? pos[3] : NULL;   /* the proof's error first */
        if (bad) {
            fprintf(stderr, "zkslot prove: %s: %s\n", bad, strerror(rc ? -rc : -pub.rc));
            goto out;
        }
        if ((rc = zk_atomic_commit_all(both, 2, &failed))) {
            fprintf(stderr, "zkslot prove: %s: %s\n", pos[2 + failed], strerror(-rc));
            goto out;
        }
    }
    if (verbose)
        fprintf(stderr, "zkslot prove: seconds: key %.3f, witness %.3f, proof %.3f, "
                        "output %.3f\n", t_key - t0, t_wit - t_key, t_prove - t_wit,
                zk_now_s() - t_prove);
    ret = 0;
out:
    if (pub_started)
        pthread_join(pub_thread, NULL);
    zk_atomic_abort(&pub.f);      /* no-ops once committed */
    zk_atomic_abort(&prf);
    if (tmpdir[0]) {
        unlink(wtns);
        rmdir(tmpdir);
    }
    free(pj);
    free(uj);
    free(w);
    zk_groth16_key_free(k);
    return ret;
}
