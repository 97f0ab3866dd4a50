/*
 * json.c -- proof.json, public.json and verification_key.json in snarkjs's
 * shapes (docs/formats.md section 7), through jansson.  Numbers are
 * decimal strings of canonical plain integers; points are written affine
 * with z = "1" and read the way snarkjs's G.fromObject reads them.
 */
#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "g16_internal.h"
#include "zk/error.h"

#define MAXL 6   /* limbs of the largest base field (BLS12-381 Fq) */

/* ---- decimal <-> limbs ---------------------------------------------------- */

/* Decimal string of the n-limb little-endian integer a (out: >= 120 bytes). */
static void limbs_to_dec(char *out, const uint64_t *a, unsigned n)
{
    uint64_t t[MAXL];
    char rev[128];
    size_t len = 0;
    unsigned top = n;

    memcpy(t, a, n * sizeof *t);
    while (top && t[top - 1] == 0)
        top--;
    while (top) {
        /* t /= 10^19, remainder -> 19 digits */
        unsigned __int128 rem = 0;
        for (unsigned i = top; i-- > 0;) {
            unsigned __int128 cur = (rem << 64) | t[i];
            t[i] = (uint64_t)(cur / 10000000000000000000ULL);
            rem = cur % 10000000000000000000ULL;
        }
        uint64_t r = (uint64_t)rem;
        while (top && t[top - 1] == 0)
            top--;
        for (int d = 0; d < 19 && (top || r); d++) {
            rev[len++] = (char)('0' + r % 10);
            r /= 10;
        }
    }
    if (len == 0)
        rev[len++] = '0';
    for (size_t i = 0; i < len; i++)
        out[i] = rev[len - 1 - i];
    out[len] = 0;
}

/* Parse a decimal string into n limbs.  0, or -1 (not a decimal / too big). */
static int dec_to_limbs(uint64_t *ret, const char *s, unsigned n)
{
    uint64_t t[MAXL] = { 0 };

    if (!*s)
        return -1;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return -1;
        uint64_t carry = (uint64_t)(*s - '0');
        for (unsigned i = 0; i < n; i++) {
            unsigned __int128 cur = (unsigned __int128)t[i] * 10 + carry;
            t[i] = (uint64_t)cur;
            carry = (uint64_t)(cur >> 64);
        }
        if (carry)
            return -1;
    }
    memcpy(ret, t, n * sizeof *t);
    return 0;
}

/* A JSON number value (decimal string or non-negative integer) as n limbs. */
static int json_to_limbs(uint64_t *ret, const json_t *v, unsigned n)
{
    char buf[32];

    if (json_is_string(v))
        return dec_to_limbs(ret, json_string_value(v), n);
    if (json_is_integer(v) && json_integer_value(v) >= 0) {
        snprintf(buf, sizeof buf, "%lld", (long long)json_integer_value(v));
        return dec_to_limbs(ret, buf, n);
    }
    return -1;
}

static int diag_set(struct zk_diag *diag, const char *name, int rc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* zk_diag_set, "<json>" when there is no name */
static int diag_set(struct zk_diag *diag, const char *name, int rc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    zk_diag_vset(diag, name ? name : "<json>", rc, fmt, ap);
    va_end(ap);
    return rc;
}

/* ---- writing -------------------------------------------------------------- */

static json_t *fq_json(const struct g16_ops *ops, const uint64_t *mont)
{
    uint64_t plain[MAXL];
    char dec[128];
    ops->fq_from_mont(plain, mont);
    limbs_to_dec(dec, plain, ops->fq_limbs);
    return json_string(dec);
}

static int is_zero_words(const uint64_t *a, size_t n)
{
    uint64_t acc = 0;
    for (size_t i = 0; i < n; i++)
        acc |= a[i];
    return acc == 0;
}

static json_t *g1_json(const struct g16_ops *ops, const uint64_t *aff)
{
    unsigned L = ops->fq_limbs;
    if (is_zero_words(aff, 2 * L))
        return json_pack("[sss]", "0", "1", "0");
    return json_pack("[oos]", fq_json(ops, aff), fq_json(ops, aff + L), "1");
}

static json_t *g2_json(const struct g16_ops *ops, const uint64_t *aff)
{
    unsigned L = ops->fq_limbs;
    if (is_zero_words(aff, 4 * L))
        return json_pack("[[ss][ss][ss]]", "0", "0", "1", "0", "0", "0");
    return json_pack("[[oo][oo][ss]]", fq_json(ops, aff), fq_json(ops, aff + L),
                     fq_json(ops, aff + 2 * L), fq_json(ops, aff + 3 * L), "1", "0");
}

static char *dump(json_t *j)
{
    char *s, *out;
    size_t len;

    if (!j)
        return NULL;
    s = json_dumps(j, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
    json_decref(j);
    if (!s)
        return NULL;
    len = strlen(s);
    out = realloc(s, len + 2);
    if (!out) {
        free(s);
        return NULL;
    }
    out[len] = '\n';
    out[len + 1] = 0;
    return out;
}

char *zk_groth16_proof_to_json(const struct zk_groth16_proof *proof)
{
    const struct g16_ops *ops = zk_g16_ops(proof->curve);
    if (!ops)
        return NULL;
    return dump(json_pack("{s:o, s:o, s:o, s:s, s:s}", "pi_a", g1_json(ops, proof->pi_a),
                          "pi_b", g2_json(ops, proof->pi_b), "pi_c", g1_json(ops, proof->pi_c),
                          "protocol", "groth16", "curve", zk_curve_name(proof->curve)));
}

char *zk_groth16_public_to_json(const zk_scalar *pub, size_t n)
{
    json_t *arr = json_array();
    char dec[128];

    if (!arr)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        limbs_to_dec(dec, pub[i].l, 4);
        if (json_array_append_new(arr, json_string(dec))) {
            json_decref(arr);
            return NULL;
        }
    }
    return dump(arr);
}

char *zk_groth16_vk_to_json(const struct zk_groth16_vk *vk)
{
    const struct g16_ops *ops = zk_g16_ops(vk->curve);
    uint64_t ab[12 * MAXL];
    char dec[128];
    json_t *abj, *ic;

    if (!ops || ops->alphabeta(vk->alpha1, vk->beta2, ab))
        return NULL;
    abj = json_array();
    for (int h = 0; h < 2 && abj; h++) {           /* Fq12 = c0 + c1 w */
        json_t *f6 = json_array();
        for (int k = 0; k < 3 && f6; k++) {        /* Fq6 = c0 + c1 v + c2 v^2 */
            json_t *f2 = json_array();
            for (int e = 0; e < 2 && f2; e++) {    /* Fq2 = c0 + c1 u */
                limbs_to_dec(dec, ab + (size_t)((h * 3 + k) * 2 + e) * ops->fq_limbs,
                             ops->fq_limbs);
                json_array_append_new(f2, json_string(dec));
            }
            json_array_append_new(f6, f2);
        }
        json_array_append_new(abj, f6);
    }
    ic = json_array();
    for (uint32_t i = 0; ic && i <= vk->n_public; i++)
        json_array_append_new(ic, g1_json(ops, vk->ic[i]));
    return dump(json_pack("{s:s, s:s, s:I, s:o, s:o, s:o, s:o, s:o, s:o}", "protocol", "groth16",
                          "curve", zk_curve_name(vk->curve), "nPublic", (json_int_t)vk->n_public,
                          "vk_alpha_1", g1_json(ops, vk->alpha1), "vk_beta_2",
                          g2_json(ops, vk->beta2), "vk_gamma_2", g2_json(ops, vk->gamma2),
                          "vk_delta_2", g2_json(ops, vk->delta2), "vk_alphabeta_12", abj,
                          "IC", ic));
}

/* ---- reading -------------------------------------------------------------- */

/* An Fq element (plain, canonical) -> Montgomery limbs. */
static int parse_fq(const struct g16_ops *ops, const json_t *v, uint64_t *ret_mont)
{
    uint64_t t[MAXL];
    if (json_to_limbs(t, v, ops->fq_limbs))
        return ZK_EJSON;
    if (!ops->fq_is_canonical(t))
        return ZK_ENOT_CANONICAL;
    ops->fq_to_mont(ret_mont, t);
    return 0;
}

/* Fq2 [c0, c1] -> 2L Montgomery limbs. */
static int parse_fq2(const struct g16_ops *ops, const json_t *v, uint64_t *ret)
{
    int rc;
    if (!json_is_array(v) || json_array_size(v) != 2)
        return ZK_EJSON;
    if ((rc = parse_fq(ops, json_array_get(v, 0), ret)) ||
        (rc = parse_fq(ops, json_array_get(v, 1), ret + ops->fq_limbs)))
        return rc;
    return 0;
}

/*
 * A point [x, y, z?] (G1: Fq elements, G2: Fq2 pairs) -> affine encoding,
 * with snarkjs's fromObject rules: no z or z = 1 affine, z = 0 infinity,
 * other z Jacobian.
 */
static int parse_point(const struct g16_ops *ops, const json_t *v, int g2, uint64_t *ret_aff)
{
    unsigned L = ops->fq_limbs, e = g2 ? 2 * L : L;
    uint64_t x[2 * MAXL], y[2 * MAXL], z[2 * MAXL], one[2 * MAXL] = { 0 }, m1[2 * MAXL];
    size_t n;
    int rc;

    if (!json_is_array(v))
        return ZK_EJSON;
    n = json_array_size(v);
    if (n != 2 && n != 3)
        return ZK_EJSON;
    if (g2) {
        if ((rc = parse_fq2(ops, json_array_get(v, 0), x)) ||
            (rc = parse_fq2(ops, json_array_get(v, 1), y)))
            return rc;
    } else if ((rc = parse_fq(ops, json_array_get(v, 0), x)) ||
               (rc = parse_fq(ops, json_array_get(v, 1), y))) {
        return rc;
    }
    one[0] = 1;
    ops->fq_to_mont(m1, one);        /* Montgomery 1 in the first L limbs */
    memset(m1 + L, 0, L * sizeof *m1);
    if (n == 2) {
        memcpy(z, m1, e * sizeof *z);
    } else if (g2) {
        if ((rc = parse_fq2(ops, json_array_get(v, 2), z)))
            return rc;
    } else if ((rc = parse_fq(ops, json_array_get(v, 2), z))) {
        return rc;
    }
    memset(ret_aff, 0, 2 * e * sizeof *ret_aff);
    if (is_zero_words(z, e))
        return 0;                                  /* infinity */
    if (!memcmp(z, m1, e * sizeof *z)) {
        memcpy(ret_aff, x, e * sizeof *x);
        memcpy(ret_aff + e, y, e * sizeof *y);
        return 0;
    }
    if (g2)
        ops->g2_from_jac(ret_aff, x, y, z);
    else
        ops->g1_from_jac(ret_aff, x, y, z);
    return 0;
}

static int point_member(const struct g16_ops *ops, const json_t *root, const char *key, int g2,
                        uint64_t *ret, const char *name, struct zk_diag *diag)
{
    const json_t *v = json_object_get(root, key);
    int rc;
    if (!v)
        return diag_set(diag, name, ZK_EJSON, "missing \"%s\"", key);
    rc = parse_point(ops, v, g2, ret);
    if (rc == ZK_ENOT_CANONICAL)
        return diag_set(diag, name, rc, "\"%s\": coordinate not below the field prime", key);
    if (rc)
        return diag_set(diag, name, rc, "\"%s\" is not a %s point", key, g2 ? "G2" : "G1");
    return 0;
}

static json_t *load(const char *text, const char *name, struct zk_diag *diag)
{
    json_error_t err;
    json_t *j = json_loads(text, JSON_REJECT_DUPLICATES, &err);
    if (!j)
        diag_set(diag, name, ZK_EJSON, "invalid JSON at line %d: %s", err.line, err.text);
    return j;
}

int zk_groth16_proof_from_json(const char *text, enum zk_curve curve, const char *name,
                               struct zk_groth16_proof *proof, struct zk_diag *diag)
{
    const struct g16_ops *ops = zk_g16_ops(curve);
    struct zk_groth16_proof p;
    json_t *j;
    int rc;

    if (!ops)
        return diag_set(diag, name, ZK_ECURVE, "unknown curve");
    if (!(j = load(text, name, diag)))
        return ZK_EJSON;
    memset(&p, 0, sizeof p);
    p.curve = curve;
    rc = ZK_EJSON;
    if (!json_is_object(j)) {
        diag_set(diag, name, rc, "not a JSON object");
        goto out;
    }
    if ((rc = point_member(ops, j, "pi_a", 0, p.pi_a, name, diag)) ||
        (rc = point_member(ops, j, "pi_b", 1, p.pi_b, name, diag)) ||
        (rc = point_member(ops, j, "pi_c", 0, p.pi_c, name, diag)))
        goto out;
    *proof = p;
out:
    json_decref(j);
    return rc;
}

int zk_groth16_public_from_json(const char *text, const char *name, zk_scalar **ret_pub,
                                size_t *ret_n, struct zk_diag *diag)
{
    zk_scalar *pub = NULL;
    json_t *j;
    size_t n;
    int rc = ZK_EJSON;

    if (!(j = load(text, name, diag)))
        return ZK_EJSON;
    if (!json_is_array(j)) {
        diag_set(diag, name, rc, "not a JSON array");
        goto out;
    }
    n = json_array_size(j);
    pub = malloc((n ? n : 1) * sizeof *pub);
    if (!pub) {
        rc = diag_set(diag, name, -ENOMEM, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        if (json_to_limbs(pub[i].l, json_array_get(j, i), 4)) {
            diag_set(diag, name, rc, "entry %zu is not a decimal integer below 2^256", i);
            free(pub);
            goto out;
        }
    }
    *ret_pub = pub;
    *ret_n = n;
    rc = 0;
out:
    json_decref(j);
    return rc;
}

/* snarkjs's curve lookup: lower case, alphanumerics only. */
static int curve_from_name(const char *s, enum zk_curve *ret)
{
    char b[32];
    size_t n = 0;
    for (; *s && n < sizeof b - 1; s++) {
        if (isalnum((unsigned char)*s))
            b[n++] = (char)tolower((unsigned char)*s);
    }
    b[n] = 0;
    if (!strcmp(b, "bn128") || !strcmp(b, "bn254") || !strcmp(b, "altbn128")) {
        *ret = ZK_CURVE_BN254;
        return 0;
    }
    if (!strcmp(b, "bls12381")) {
        *ret = ZK_CURVE_BLS12_381;
        return 0;
    }
    return ZK_ECURVE;
}

int zk_groth16_vk_from_json(const char *text, const char *name, struct zk_groth16_vk *vk,
                            struct zk_diag *diag)
{
    struct zk_groth16_vk v;
    const struct g16_ops *ops;
    const json_t *cv, *ic, *np;
    json_t *j;
    int rc = ZK_EJSON;

    memset(&v, 0, sizeof v);
    if (!(j = load(text, name, diag)))
        return ZK_EJSON;
    if (!json_is_object(j)) {
        diag_set(diag, name, rc, "not a JSON object");
        goto out;
    }
    cv = json_object_get(j, "curve");
    if (!json_is_string(cv)) {
        diag_set(diag, name, rc, "missing \"curve\"");
        goto out;
    }
    if (curve_from_name(json_string_value(cv), &v.curve)) {
        rc = diag_set(diag, name, ZK_ECURVE, "unsupported curve \"%s\"", json_string_value(cv));
        goto out;
    }
    ops = zk_g16_ops(v.curve);
    ic = json_object_get(j, "IC");
    if (!json_is_array(ic) || json_array_size(ic) < 1 || json_array_size(ic) > UINT32_MAX) {
        diag_set(diag, name, rc, "missing or empty \"IC\"");
        goto out;
    }
    v.n_public = (uint32_t)(json_array_size(ic) - 1);
    np = json_object_get(j, "nPublic");
    if (np && (!json_is_integer(np) || json_integer_value(np) != (json_int_t)v.n_public)) {
        rc = diag_set(diag, name, ZK_ELENGTH, "\"nPublic\" disagrees with the %u IC points",
                      v.n_public + 1);
        goto out;
    }
    if ((rc = point_member(ops, j, "vk_alpha_1", 0, v.alpha1, name, diag)) ||
        (rc = point_member(ops, j, "vk_beta_2", 1, v.beta2, name, diag)) ||
        (rc = point_member(ops, j, "vk_gamma_2", 1, v.gamma2, name, diag)) ||
        (rc = point_member(ops, j, "vk_delta_2", 1, v.delta2, name, diag)))
        goto out;
    v.ic = calloc((size_t)v.n_public + 1, sizeof *v.ic);
    if (!v.ic) {
        rc = diag_set(diag, name, -ENOMEM, "out of memory");
        goto out;
    }
    for (size_t i = 0; i <= v.n_public; i++) {
        rc = parse_point(ops, json_array_get(ic, i), 0, v.ic[i]);
        if (rc) {
            diag_set(diag, name, rc, "IC[%zu] is not a valid G1 point", i);
            goto out;
        }
    }
    *vk = v;
    v.ic = NULL;
    rc = 0;
out:
    free(v.ic);
    json_decref(j);
    return rc;
}
