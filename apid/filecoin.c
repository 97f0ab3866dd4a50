/*
 * filecoin.c -- "filecoin" of POST /v1/jobs: a storage provider's input as
 * filecoin-proofs takes it (a C1 output for PoRep, the vanilla proofs of a
 * PoSt or a SnapDeals update: docs/filecoin.md), split on the server into
 * one part file per partition by the key's own synthesizer, the parts then
 * the job's inputs exactly as `zkslot submit --filecoin` makes them.
 *
 *   {"key": "fil-porep-2KiB", "filecoin": {"kind": "porep", "input": {...}}}
 *
 * The split runs as zkslot-apid's user under the rules of a witness
 * generator (zk/witgen.h): only the program key add registered for the key
 * (the word before " synth"), unchanged since (its content hash), only when `[synthd] generators` allows it on this
 * machine (checked just before it starts), with the generators' memory,
 * time and output limits, a fixed environment, stdin /dev/null, in a
 * private directory (mkdtemp under `[synthd] witness_dir`, 0700) removed
 * afterwards.  Nothing a client sends names a program or a path.  The
 * caller's token was judged for the key before this runs (submit.c).
 *
 * Refusals, nothing queued: the kind not the key's (422 bad_input), a
 * synthesizer changed since key add (422 key_unusable), the
 * input refused by the synthesizer (422 bad_input, its one line), a part
 * of another sector size than the key's (422 bad_input), a synthesizer
 * not allowed here (422 no_generator), one that could not run or was
 * stopped by a limit (503 split_failed).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "apid.h"
#include "filecoin_cli.h"
#include "zk/error.h"
#include "zk/witgen.h"

int apid_filecoin_parse(json_t *fc, struct apid_submit *s, struct apid_reply *r)
{
    const char *key;
    json_t *val;
    if (!json_is_object(fc))
        return apid_error(r, 400, "bad_field", "filecoin: must be an object {\"kind\": "
                          "porep|winning|window|snap, \"input\": OBJECT}");
    json_object_foreach(fc, key, val) {
        if (strcmp(key, "kind") && strcmp(key, "input"))
            return apid_error(r, 400, "bad_field", "filecoin.%.64s: not a field (kind, "
                              "input)", key);
    }
    const char *kind = json_string_value(json_object_get(fc, "kind"));
    if (!kind || !fil_kind_valid(kind))
        return apid_error(r, 400, "bad_field", "filecoin.kind: porep, winning, window or snap");
    json_t *in = json_object_get(fc, "input");
    if (!json_is_object(in))
        return apid_error(r, 400, "bad_field", "filecoin.input: must be the provider's input "
                          "object (a C1 output, or the vanilla proofs of a PoSt or an update)");
    s->fil_kind = kind;
    if (!(s->fil_input = json_dumps(in, JSON_COMPACT)))
        return apid_error(r, 500, "internal", "out of memory");
    s->fil_input_len = strlen(s->fil_input);
    return 0;
}

/* The key's synthesizer: key add --filecoin writes its generator as
 * "PROG synth --expect KIND --input {input} --out {output}" (PROG quoted as
 * a command template quotes it); PROG's word, as written, into prog and
 * KIND into kind.  0, or -EINVAL when the key's generator is not one. */
static int key_synth(const struct zk_ledger_key *k, char *prog, size_t n, char *kind,
                     size_t kind_n)
{
    static const char mark[] = " synth --expect ";
    const char *w = k->witgen, *e = strstr(w, mark);
    size_t pl = e ? (size_t)(e - w) : 0;
    if (k->witgen_kind != ZK_WITGEN_CMD || !pl || pl >= n)
        return -EINVAL;
    memcpy(prog, w, pl);
    prog[pl] = 0;
    e += strlen(mark);
    size_t kl = strcspn(e, " \t");
    if (!kl || kl >= kind_n)
        return -EINVAL;
    memcpy(kind, e, kl);
    kind[kl] = 0;
    return 0;
}

/* Removes dir and the files (one level of directories) below it. */
static void rm_dir(const char *dir)
{
    char p[PATH_MAX];
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        if (unlink(p) && (errno == EISDIR || errno == EPERM))
            rm_dir(p);
    }
    if (d)
        closedir(d);
    rmdir(dir);
}

/* The file at path into a malloc'd buffer (at most max bytes): 0, -EFBIG, or -errno. */
static int read_file(const char *path, size_t max, char **ret, size_t *len)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    if (fd < 0)
        return -errno;
    int r = fstat(fd, &st) < 0 ? -errno : !S_ISREG(st.st_mode) ? -EINVAL
                                       : (size_t)st.st_size > max ? -EFBIG : 0;
    char *buf = r ? NULL : malloc((size_t)st.st_size + 1);
    if (!r && !buf)
        r = -ENOMEM;
    size_t got = 0;
    while (!r && got < (size_t)st.st_size) {
        ssize_t k = read(fd, buf + got, (size_t)st.st_size - got);
        if (k <= 0)
            r = k < 0 ? -errno : -EIO;
        got += k > 0 ? (size_t)k : 0;
    }
    close(fd);
    if (r) {
        free(buf);
        return r;
    }
    buf[got] = 0;
    *ret = buf;
    *len = got;
    return 0;
}

/* The parts split wrote (DIR/part-K.json, K from 0) into s->inputs. */
static int take_parts(const char *dir, const char *kind, const struct zk_ledger_key *k,
                      struct apid_submit *s, struct apid_reply *r)
{
    char p[PATH_MAX + 64], want[96], msg[FIL_MSG_MAX];
    size_t n = 0;
    for (;; n++) {
        snprintf(p, sizeof p, "%s/part-%zu.json", dir, n);
        if (access(p, F_OK))
            break;
    }
    if (!n)
        return apid_error(r, 503, "split_failed", "filecoin: the synthesizer wrote no part");
    if (n > APID_INPUTS_MAX)
        return apid_error(r, 422, "bad_input", "filecoin.input: %zu partitions; a job has at "
                          "most %d", n, APID_INPUTS_MAX);
    /* the key the input's registered proof names (its sector size) */
    snprintf(p, sizeof p, "%s/part-0.json", dir);
    if (fil_part_key(kind, p, want, sizeof want, msg, sizeof msg))
        return apid_error(r, 503, "split_failed", "filecoin: %s", msg);
    if (strcmp(want, k->name))
        return apid_error(r, 422, "bad_input", "filecoin.input: its registered proof makes "
                          "it a job of key %s, not %.64s", want, k->name);
    if (!(s->inputs = calloc(n, sizeof *s->inputs)) || !(s->lens = calloc(n, sizeof *s->lens)))
        return apid_error(r, 500, "internal", "out of memory");
    s->ninputs = n;
    for (size_t i = 0; i < n; i++) {
        snprintf(p, sizeof p, "%s/part-%zu.json", dir, i);
        int rc = read_file(p, ZK_LEDGER_INPUT_MAX, &s->inputs[i], &s->lens[i]);
        if (rc == -EFBIG)
            return apid_error(r, 413, "too_large", "filecoin: partition %zu's part is over "
                              "%u bytes", i, ZK_LEDGER_INPUT_MAX);
        if (rc)
            return apid_error(r, 503, "split_failed", "filecoin: part %zu: %s", i,
                              strerror(-rc));
    }
    return 0;
}

typedef char res_output_t[sizeof ((struct zk_witgen_result *)0)->output];

/* The synthesizer's line with the server's path of the input (path) said
 * as the client's field, "filecoin.input", into buf (n > 0). */
static const char *own_words(const char *line, const char *path, char *buf, size_t n)
{
    size_t o = 0, pl = strlen(path);
    const char *p = line, *hit;
    buf[0] = 0;
    if (!strstr(line, path))
        o = (size_t)snprintf(buf, n, "filecoin.input: ");
    while (o < n - 1 && (hit = strstr(p, path))) {
        o += (size_t)snprintf(buf + o, n - o, "%.*sfilecoin.input", (int)(hit - p), p);
        p = hit + pl;
    }
    if (o < n - 1)
        snprintf(buf + o, n - o, "%s", p);
    return buf;
}

int apid_filecoin_split(struct apid *a, const struct zk_ledger_key *k, struct apid_submit *s,
                        struct apid_reply *r)
{
    const struct zk_config *cfg = &a->c.cfg;
    char prog[PATH_MAX], kkind[16], dir[PATH_MAX], in[PATH_MAX + 16], out[PATH_MAX + 16];
    char spec[ZK_WITGEN_SPEC_MAX + 64], msg[sizeof(res_output_t) + 64];
    if (key_synth(k, prog, sizeof prog, kkind, sizeof kkind))
        return apid_error(r, 422, "bad_input", "key %.64s is not a Filecoin key (zkslot key "
                          "add --filecoin): \"filecoin\" needs one", k->name);
    if (strcmp(kkind, s->fil_kind))
        return apid_error(r, 422, "bad_input", "filecoin.kind: key %.64s proves %s, not %s",
                          k->name, kkind, s->fil_kind);
    /* the synthesizer registered, byte for byte: what synthd checks before
     * each run (synthd/witness.c) holds for the split too */
    struct zk_witgen reg;
    struct zk_diag hd = { "" };
    char hex[33];
    memset(&reg, 0, sizeof reg);
    reg.kind = ZK_WITGEN_CMD;
    snprintf(reg.spec, sizeof reg.spec, "%s", k->witgen);
    if (zk_witgen_hash(&reg, hex, &hd) || strcmp(hex, k->witgen_hash))
        return apid_error(r, 422, "key_unusable", "key %.64s: its synthesizer %s since `zkslot "
                          "key add --filecoin`: register it again", k->name,
                          hd.msg[0] ? "cannot be read" : "changed");
    if ((size_t)snprintf(dir, sizeof dir, "%s/zkslot-apid-split-XXXXXX", cfg->witness_dir) >=
            sizeof dir || !mkdtemp(dir))
        return apid_error(r, 503, "split_failed", "filecoin: a private directory in %s: %s",
                          cfg->witness_dir, strerror(errno));
    snprintf(in, sizeof in, "%s/input.json", dir);
    snprintf(out, sizeof out, "%s/parts", dir);
    int rc = -1;
    int fd = open(in, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    size_t o = 0;
    while (fd >= 0 && o < s->fil_input_len) {
        ssize_t w = write(fd, s->fil_input + o, s->fil_input_len - o);
        if (w < 0 && errno != EINTR)
            break;
        o += w > 0 ? (size_t)w : 0;
    }
    if (fd < 0 || o < s->fil_input_len) {
        apid_error(r, 503, "split_failed", "filecoin: writing the input: %s", strerror(errno));
        goto out;
    }
    close(fd);
    fd = -1;
    if ((size_t)snprintf(spec, sizeof spec, "%s split --kind %s --input {input} --out-dir "
                         "{output}", prog, s->fil_kind) >= ZK_WITGEN_SPEC_MAX) {
        apid_error(r, 422, "bad_input", "key %.64s: its synthesizer's path is too long",
                   k->name);
        goto out;
    }
    struct zk_witgen g;
    struct zk_witgen_result res;
    struct zk_diag d = { "" };
    memset(&res, 0, sizeof res);
    struct zk_witgen_limits lim = { cfg->witness_memory, cfg->witness_timeout * 1000u,
                                    cfg->witness_output, NULL, cfg->synthd_generators };
    int wr = zk_witgen_resolve(spec, 1, &g, &d);
    if (!wr)
        wr = zk_witgen_run(&g, in, out, &lim, NULL, &res, &d);
    if (wr == -EPERM || wr == ZK_EUNTRUSTED)
        apid_error(r, 422, "no_generator", "key %.64s: its synthesizer does not run on this "
                   "machine ([synthd] generators): %s", k->name, d.msg);
    else if (wr == ZK_EREJECTED)
        apid_error(r, 422, "bad_input", "%s",
                   own_words(res.output[0] ? res.output : d.msg, in, msg, sizeof msg));
    else if (wr)
        apid_error(r, 503, "split_failed", "filecoin: %s%s%s", d.msg, wr == -ENOENT ? "" : ": ",
                   wr == -ENOENT ? "" : res.output);
    else
        rc = take_parts(out, s->fil_kind, k, s, r);
out:
    if (fd >= 0)
        close(fd);
    rm_dir(dir);
    return rc;
}
