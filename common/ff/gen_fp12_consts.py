#!/usr/bin/env python3
"""Frobenius constants of the Fp12 towers (printed as C initializers).

Tower: Fp2 = Fp[u]/(u^2+1), Fp6 = Fp2[v]/(v^3 - xi), Fp12 = Fp6[w]/(w^2 - v),
so w^6 = xi.  An Fp12 element is sum_k g_k w^k (g_k in Fp2) and
(g w^k)^(p^j) = frob_j(g) * w^k * xi^(k (p^j - 1)/6), hence the constants
    FROBj[k] = xi^(k (p^j - 1) / 6),  j = 1, 2, 3,  k = 1..5
(j = 2: they lie in Fp).  Printed in Montgomery form, little-endian limbs.
"""
CURVES = {
    "BN254": (0x30644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd47, (9, 1), 4),
    "BLS381": (0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab, (1, 1), 6),
}

def f2mul(a, b, p):
    return ((a[0]*b[0] - a[1]*b[1]) % p, (a[0]*b[1] + a[1]*b[0]) % p)

def f2pow(a, e, p):
    r = (1, 0)
    while e:
        if e & 1:
            r = f2mul(r, a, p)
        a = f2mul(a, a, p)
        e >>= 1
    return r

def limbs(v, n):
    return "{ " + ", ".join("0x%016xULL" % ((v >> (64*i)) & (2**64-1)) for i in range(n)) + " }"

for name, (p, xi, n) in CURVES.items():
    R = 2**(64*n)
    mont = lambda v: (v * R) % p
    for j in (1, 2, 3):
        q = p**j
        assert (q - 1) % 6 == 0
        print("#define %s_FROB%d { \\" % (name, j))
        for k in range(1, 6):
            g = f2pow(xi, k*(q-1)//6, p)
            if j == 2:
                assert g[1] == 0
            print("    { { %s }, { %s } }%s \\" % (limbs(mont(g[0]), n), limbs(mont(g[1]), n), "," if k < 5 else ""))
        print("}")

# Identities behind the final exponentiation hard parts in
# common/pairing/pairing.c (asserted here, printed nothing).
x = 4965661367192848881
p = 36*x**4 + 36*x**3 + 24*x**2 + 6*x + 1
r = 36*x**4 + 36*x**3 + 18*x**2 + 6*x + 1
assert p == CURVES["BN254"][0] and (p**4 - p**2 + 1) % r == 0
h = (p**4 - p**2 + 1) // r
l0 = 12*x**3 + 12*x**2 + 6*x + 1
l1 = 12*x**3 + 6*x**2 + 4*x
l2 = 12*x**3 + 6*x**2 + 6*x
l3 = 12*x**3 + 6*x**2 + 4*x - 1
assert l0 + l1*p + l2*p**2 + l3*p**3 == 2*x*(6*x**2 + 3*x + 1) * h
x = -0xd201000000010000
r = x**4 - x**2 + 1
p = (x - 1)**2 * r // 3 + x
assert p == CURVES["BLS381"][0] and (p**4 - p**2 + 1) % r == 0
assert 3 * ((p**4 - p**2 + 1) // r) == (x - 1)**2 * (x + p) * (x**2 + p**2 - 1) + 3
