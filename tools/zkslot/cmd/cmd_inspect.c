/*
 * cmd_inspect.c -- `zkslot inspect FILE`: a summary of a .zkey, .wtns or
 * .r1cs file (kind, curve, version, sizes, sections), found by its magic.
 * The whole file is checked on the way (zkey coefficients, r1cs
 * constraints, witness values), so exit 0 also means "readable".
 * Exit 2 with one line naming the file and the problem on bad input.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "zk/binfile.h"
#include "zk/error.h"
#include "zk/r1cs.h"
#include "zk/wtns.h"
#include "zk/zkey.h"

static void print_sections(const struct zk_binfile *bf)
{
    printf("sections:     %u\n", bf->n_sections);
    printf("  %4s %12s %12s\n", "id", "offset", "size");
    for (uint32_t i = 0; i < bf->n_sections; i++)
        printf("  %4u %12llu %12llu\n", bf->sections[i].id,
               (unsigned long long)bf->sections[i].offset,
               (unsigned long long)bf->sections[i].size);
}

static void print_common(const struct zk_binfile *bf, const char *kind, enum zk_curve curve)
{
    printf("file:         %s\n", bf->name);
    printf("kind:         %s\n", kind);
    printf("version:      %u\n", bf->version);
    printf("size:         %llu bytes\n", (unsigned long long)bf->file_size);
    printf("curve:        %s\n", zk_curve_name(curve));
}

/* Walk section 4 in chunks: validates it and counts A / B entries. */
static int count_coefs(const struct zk_zkey *z, uint64_t ab[2], struct zk_diag *d)
{
    enum { CHUNK = 1 << 16 };
    struct zk_zkey_coef *c = malloc(CHUNK * sizeof *c);
    int rc = 0;
    if (!c)
        return -ENOMEM;
    ab[0] = ab[1] = 0;
    for (uint64_t at = 0; at < z->hdr.n_coef && !rc; at += CHUNK) {
        uint64_t k = z->hdr.n_coef - at < CHUNK ? z->hdr.n_coef - at : CHUNK;
        rc = zk_zkey_read_coefs(z, at, k, c, d);
        for (uint64_t i = 0; !rc && i < k; i++)
            ab[c[i].matrix]++;
    }
    free(c);
    return rc;
}

static int inspect_zkey(const char *path, struct zk_diag *d)
{
    struct zk_zkey z;
    uint64_t ab[2];
    int rc = zk_zkey_open(&z, path, d);
    if (rc)
        return rc;
    rc = count_coefs(&z, ab, d);
    if (rc)
        goto out;
    const struct zk_zkey_header *h = &z.hdr;
    print_common(&z.bf, "zkey (Groth16 proving key)", h->curve);
    printf("nVars:        %u\n", h->n_vars);
    printf("nPublic:      %u\n", h->n_public);
    printf("domainSize:   %u (2^%u)\n", h->domain_size, h->log2_domain);
    printf("nCoef:        %llu (A %llu, B %llu)\n", (unsigned long long)h->n_coef,
           (unsigned long long)ab[0], (unsigned long long)ab[1]);
    printf("point bytes:  G1 %u, G2 %u\n", h->g1_bytes, h->g2_bytes);
    printf("contributions section: %s\n", z.sec[ZK_ZKEY_SEC_CONTRIB].id ? "yes" : "no");
    print_sections(&z.bf);
out:
    zk_zkey_done(&z);
    return rc;
}

static int inspect_wtns(const char *path, struct zk_diag *d)
{
    struct zk_wtns w;
    enum { CHUNK = 1 << 16 };
    int rc = zk_wtns_open(&w, path, d);
    if (rc)
        return rc;
    uint64_t (*v)[4] = malloc(CHUNK * sizeof *v);
    if (!v) {
        rc = -ENOMEM;
        goto out;
    }
    for (uint64_t at = 0; at < w.hdr.n_witness && !rc; at += CHUNK) {
        uint64_t k = w.hdr.n_witness - at < CHUNK ? w.hdr.n_witness - at : CHUNK;
        rc = zk_wtns_read_values(&w, at, k, v, d);
    }
    free(v);
    if (rc)
        goto out;
    print_common(&w.bf, "wtns (witness)", w.hdr.curve);
    printf("n8:           %u\n", w.hdr.n8);
    printf("nWitness:     %u\n", w.hdr.n_witness);
    print_sections(&w.bf);
out:
    zk_wtns_done(&w);
    return rc;
}

static int inspect_r1cs(const char *path, struct zk_diag *d)
{
    struct zk_r1cs r;
    uint64_t terms[3];
    int rc = zk_r1cs_open(&r, path, d);
    if (rc)
        return rc;
    rc = zk_r1cs_for_each_constraint(&r, NULL, NULL, terms, d);
    if (rc)
        goto out;
    const struct zk_r1cs_header *h = &r.hdr;
    uint64_t npub = (uint64_t)h->n_pub_out + h->n_pub_in;
    uint64_t need = (uint64_t)h->n_constraints + npub + 1, dom = 1;
    unsigned lg = 0;
    while (dom < need)
        dom <<= 1, lg++;
    print_common(&r.bf, "r1cs (constraint system)", h->curve);
    printf("nWires:       %u\n", h->n_wires);
    printf("nConstraints: %u\n", h->n_constraints);
    printf("nPubOut:      %u\n", h->n_pub_out);
    printf("nPubIn:       %u\n", h->n_pub_in);
    printf("nPrvIn:       %u\n", h->n_prv_in);
    printf("nLabels:      %llu\n", (unsigned long long)h->n_labels);
    printf("nPublic:      %llu\n", (unsigned long long)npub);
    printf("nCoef:        %llu (A %llu, B %llu, C %llu)\n",
           (unsigned long long)(terms[0] + terms[1] + terms[2]), (unsigned long long)terms[0],
           (unsigned long long)terms[1], (unsigned long long)terms[2]);
    printf("domainSize:   %llu (2^%u, for Groth16)\n", (unsigned long long)dom, lg);
    print_sections(&r.bf);
out:
    zk_r1cs_done(&r);
    return rc;
}

int cmd_inspect(int argc, char **argv)
{
    struct zk_diag d = { "" };
    struct zk_binfile bf;
    int rc;

    if (argc != 2 || argv[1][0] == '-') {
        fprintf(stderr, "usage: zkslot inspect FILE (.zkey, .wtns or .r1cs)\n");
        return 2;
    }
    char magic[4] = { 0 };
    FILE *f = fopen(argv[1], "rb");
    size_t got = f ? fread(magic, 1, sizeof magic, f) : 0;
    if (f)
        fclose(f);
    if (got == 4 && !memcmp(magic, "zkey", 4)) {
        rc = inspect_zkey(argv[1], &d);
    } else if (got == 4 && !memcmp(magic, "wtns", 4)) {
        rc = inspect_wtns(argv[1], &d);
    } else if (got == 4 && !memcmp(magic, "r1cs", 4)) {
        rc = inspect_r1cs(argv[1], &d);
    } else if (got < 4) {
        /* unreadable or too short: let the container parser say why */
        rc = zk_binfile_open(&bf, argv[1], NULL, &d);
        zk_binfile_done(&bf);
        if (!rc)
            rc = ZK_ETRUNCATED;
    } else {
        rc = ZK_EBADMAGIC;
        snprintf(d.msg, sizeof d.msg, "%s: not a zkey, wtns or r1cs file", argv[1]);
    }
    if (rc) {
        if (!d.msg[0])
            snprintf(d.msg, sizeof d.msg, "%s: %s", argv[1], zk_strerror(rc));
        fprintf(stderr, "zkslot inspect: %s\n", d.msg);
        return 2;
    }
    return 0;
}
