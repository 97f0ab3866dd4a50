#!/usr/bin/env python3
"""gen_mont_x86_64.py -- writes common/ff/mont_x86_64.h (run from the repo root:
   python3 common/ff/gen_mont_x86_64.py > common/ff/mont_x86_64.h).

Montgomery multiplication a*b*2^(-64n) mod p, and modular addition and
subtraction, for n = 4 and 6 as GCC/clang inline
assembly with MULX/ADCX/ADOX (two independent carry chains).  The register
allocation is left to the compiler; the generator only tracks which physical
operand holds which logical accumulator word (they rotate every round).
"""
import sys

def product_row(n, i, t, clear):
    """asm lines adding a * b[i] into the accumulator words t[0..n] (logical
    -> physical): row 0 writes them with a plain carry chain; later rows add
    with two chains (ADOX low halves, ADCX high halves) into t[0..n-1] and
    t[n], which `clear` (an instruction that also clears CF and OF) leaves
    zero or finds zero."""
    A = lambda j: f"{8*j}(%[a])"
    L = [f"movq {8*i}(%[b]), %%rdx"]
    if i == 0:
        L.append(f"mulxq {A(0)}, {t[0]}, {t[1]}")
        for j in range(1, n):
            L.append(f"mulxq {A(j)}, %[L], {t[j+1]}")
            L.append(("addq" if j == 1 else "adcq") + f" %[L], {t[j]}")
        L.append(f"adcq $0, {t[n]}")
        return L
    L.append(clear)
    for j in range(n):
        L.append(f"mulxq {A(j)}, %[L], %[H]")
        L.append(f"adoxq %[L], {t[j]}")
        if j == n - 1:
            L.append(f"adoxq {t[n]}, {t[n]}")           # t[n] = 0 + OF
        L.append(f"adcxq %[H], {t[j+1]}")
    return L

def reduce_round(n, t):
    """asm lines of one Montgomery round: t = (t + m*p) / 2^64 with
    m = t[0] * n0, on the words t[0..n] (t[n] zero or the top word); t[0]
    is zero afterwards and the caller rotates it to the top."""
    L = ["movabsq %[n0], %%rdx", f"imulq {t[0]}, %%rdx", "xorl %k[L], %k[L]"]
    for j in range(n):
        L.append(f"mulxq {8*j}+%[p], %[L], %[H]")
        L.append(f"adcxq %[L], {t[j]}")
        L.append(f"adoxq %[H], {t[j+1]}")
    L.append(f"adcxq {t[0]}, {t[n]}")                  # t[0] == 0 now
    return L

def mul_body(n):
    """asm lines of the interleaved (CIOS) product for n limbs.
    Operands: r0..rn accumulator, H L scratch, rdx implicit, a b pointers,
    p memory array, n0.  Returns (lines, final logical->physical map)."""
    L = []
    t = [f"%[r{j}]" for j in range(n + 1)]          # logical -> physical
    for i in range(n):
        # t[n] is zero before rows 1.. (the word freed by the last reduction)
        L += product_row(n, i, t, "xorl %k[L], %k[L]")
        L += reduce_round(n, t)
        t = t[1:] + t[:1]
    return L, t

def condsub_store(n, t):
    """ret = t - p if t >= p else t, for t < 2p in logical words t[0..n-1].
    Stores t to ret, subtracts p in the registers, and on a borrow reloads the
    stored words (store-to-load forwarding), so it needs no scratch register."""
    L = ["movq %[retp], %[b]"]                        # b is dead: reuse it for ret
    L += [f"movq {t[j]}, {8*j}(%[b])" for j in range(n)]
    for j in range(n):
        L.append(("subq" if j == 0 else "sbbq") + f" {8*j}+%[p], {t[j]}")
    for j in range(n):
        L.append(f"cmovcq {8*j}(%[b]), {t[j]}")
    L += [f"movq {t[j]}, {8*j}(%[b])" for j in range(n)]
    return L

def emit_fn(name, n, lines, doc):
    out = [doc]
    out.append(f"ZK_HD void {name}(limb_t *ret, const limb_t *a, const limb_t *b,")
    out.append(f"{' ' * (len(name) + 13)}const limb_t *p, limb_t n0)")
    out.append("{")
    regs = ", ".join(f"r{j}" for j in range(n + 1))
    out.append(f"    limb_t {regs}, H, L, rdx;")
    out.append("    limb_t *retp = ret;")
    out.append("    const limb_t *bp = b;")
    out.append("    __asm__(")
    for ln in lines:
        out.append(f'        "{ln}\\n\\t"')
    outs = ", ".join(f'[r{j}] "=&r"(r{j})' for j in range(n + 1))
    out.append(f"        : {outs},")
    out.append('          [H] "=&r"(H), [L] "=&r"(L), "=&d"(rdx), [b] "+r"(bp)')
    out.append(f'          ZK_MONT_OUT_MEM({n}, ret)')
    out.append(f'        : [retp] "m"(retp), [a] "r"(a), [p] "m"(*(const limb_t(*)[{n}])p), [n0] "i"(n0)')
    out.append(f'          ZK_MONT_IN_MEM({n}, a, b)')
    out.append('        : ZK_MONT_CLOBBERS);')
    out.append(f"    (void)rdx; {' '.join(f'(void)r{j};' for j in range(n + 1))}")
    out.append("}")
    return "\n".join(out)

def mul_fn(n):
    lines, t = mul_body(n)
    lines += condsub_store(n, t)
    doc = (f"/* ret = a * b * 2^-{64*n} mod p, {n} limbs (inputs < p, p with a spare bit,\n"
           f" * n0 = -p^-1 mod 2^64, a compile-time constant).  ret may alias a or b.\n"
           f" * p must be a static array (it is addressed as a symbol). */")
    return emit_fn(f"mul_mont_{n}_x86", n, lines, doc)

def addsub_fn(n, op):
    """ret = a + b mod p (op "add") or a - b mod p (op "sub"), n limbs, inputs
    < p, p with a spare bit.  The raw sum or difference is stored to ret; the
    correction (- p for the sum, + p for the difference) is computed in the
    registers, and CMOV reloads the stored words where no correction applies.
    n + 4 registers, so it fits beside a frame pointer and sanitizers."""
    r = [f"%[r{j}]" for j in range(n)]
    L = [f"movq {8*j}(%[a]), {r[j]}" for j in range(n)]
    first, rest = ("addq", "adcq") if op == "add" else ("subq", "sbbq")
    for j in range(n):
        L.append((first if j == 0 else rest) + f" {8*j}(%[b]), {r[j]}")
    if op == "sub":
        L.append("sbbq %[m], %[m]")                      # m = -borrow
    L += [f"movq {r[j]}, {8*j}(%[ret])" for j in range(n)]
    if op == "add":
        # t < 2p: t - p, keep t where that borrows
        for j in range(n):
            L.append(("subq" if j == 0 else "sbbq") + f" {8*j}+%[p], {r[j]}")
        L += [f"cmovcq {8*j}(%[ret]), {r[j]}" for j in range(n)]
    else:
        # t + p, keep t where a - b did not borrow (m == 0)
        for j in range(n):
            L.append(("addq" if j == 0 else "adcq") + f" {8*j}+%[p], {r[j]}")
        L.append("testq %[m], %[m]")
        L += [f"cmovzq {8*j}(%[ret]), {r[j]}" for j in range(n)]
    L += [f"movq {r[j]}, {8*j}(%[ret])" for j in range(n)]
    name = f"{op}_mod_{n}_x86"
    what = "a + b" if op == "add" else "a - b"
    out = [f"/* ret = {what} mod p, {n} limbs (inputs < p, p with a spare bit).  ret may\n"
           f" * alias a or b.  p must be a static array (it is addressed as a symbol). */"]
    out.append(f"ZK_HD void {name}(limb_t *ret, const limb_t *a, const limb_t *b,")
    out.append(f"{' ' * (len(name) + 13)}const limb_t *p)")
    out.append("{")
    out.append(f"    limb_t {', '.join(f'r{j}' for j in range(n))}{', m' if op == 'sub' else ''};")
    out.append("    __asm__(")
    for ln in L:
        out.append(f'        "{ln}\\n\\t"')
    outs = ", ".join(f'[r{j}] "=&r"(r{j})' for j in range(n))
    if op == "sub":
        outs += ', [m] "=&r"(m)'
    out.append(f"        : {outs}")
    out.append(f'          ZK_MONT_OUT_MEM({n}, ret)')
    out.append(f'        : [ret] "r"(ret), [a] "r"(a), [b] "r"(b), [p] "m"(*(const limb_t(*)[{n}])p)')
    out.append(f'          ZK_MONT_IN_MEM({n}, a, b)')
    out.append('        : ZK_MONT_CLOBBERS);')
    out.append(f"    {' '.join(f'(void)r{j};' for j in range(n))}{' (void)m;' if op == 'sub' else ''}")
    out.append("}")
    return "\n".join(out)

def k32(op):
    """the 32-bit name of a register operand: %[r0] -> %k[r0]"""
    return op.replace("%[", "%k[")

def asm_block(n, lines, out_mem, inputs):
    """the body of mul_wide_n_x86 / redc_n_x86: registers r0..rn, H, L, rdx,
    the asm lines, their outputs (then out_mem), inputs and clobbers."""
    out = ["{", f"    limb_t {', '.join(f'r{j}' for j in range(n + 1))}, H, L, rdx;", "    __asm__("]
    out += [f'        "{ln}\\n\\t"' for ln in lines]
    outs = ", ".join(f'[r{j}] "=&r"(r{j})' for j in range(n + 1))
    out.append(f"        : {outs},")
    out.append('          [H] "=&r"(H), [L] "=&r"(L), "=&d"(rdx)')
    out.append(out_mem)
    out += inputs
    out.append('        : ZK_MONT_CLOBBERS);')
    out.append(f"    (void)rdx; {' '.join(f'(void)r{j};' for j in range(n + 1))}")
    out.append("}")
    return out

def wide_fn(n):
    """ret (2n limbs) = a * b, the plain product without reduction, for the
    lazy reduction of Fp2 (fp2_tmpl.h).  Row by row: row i adds a * b[i] to
    the n + 1 words at positions i .. i + n with two carry chains; the word at
    position i is then final and stored, and its register, zeroed, becomes
    the top word of the next row.  a and b may hold any values (the product
    always fits 2n words)."""
    t = [f"%[r{j}]" for j in range(n + 1)]
    R = lambda j: f"{8*j}(%[ret])"
    L = []
    for i in range(n):
        L += product_row(n, i, t, f"xorl {k32(t[n])}, {k32(t[n])}")  # top word 0
        if i < n - 1:
            L.append(f"movq {t[0]}, {R(i)}")
            t = t[1:] + t[:1]
    L += [f"movq {t[j]}, {R(n - 1 + j)}" for j in range(n + 1)]
    name = f"mul_wide_{n}_x86"
    out = [f"/* ret (2*{n} limbs) = a * b, {n} limbs each, not reduced (any values).  ret\n"
           f" * must not alias a or b. */"]
    out.append(f"ZK_HD void {name}(limb_t *ret, const limb_t *a, const limb_t *b)")
    out += asm_block(n, L, f'          ZK_MONT_OUT_MEM({2*n}, ret)',
                     [f'        : [ret] "r"(ret), [a] "r"(a), [b] "r"(b)',
                      f'          ZK_MONT_IN_MEM({n}, a, b)'])
    return "\n".join(out)

def redc_fn(n):
    """ret = t * 2^(-64n) mod p, fully reduced, for t (2n limbs) < p * 2^(64n).
    The low half is reduced as in the product's rounds (m = t0 * n0, add m*p,
    drop the zero word), which leaves u = (t_lo + M p) / 2^(64n) <= p in n
    words; then ret = u + t_hi < 2p (t_hi < p), less p when that is >= p."""
    t = [f"%[r{j}]" for j in range(n + 1)]
    T = lambda j: f"{8*j}(%[t])"
    L = [f"movq {T(j)}, {t[j]}" for j in range(n)]
    L.append(f"xorl {k32(t[n])}, {k32(t[n])}")
    for i in range(n):
        L += reduce_round(n, t)
        t = t[1:] + t[:1]
    for j in range(n):
        L.append(("addq" if j == 0 else "adcq") + f" {T(n + j)}, {t[j]}")
    L += [f"movq {t[j]}, {8*j}(%[ret])" for j in range(n)]
    for j in range(n):
        L.append(("subq" if j == 0 else "sbbq") + f" {8*j}+%[p], {t[j]}")
    L += [f"cmovcq {8*j}(%[ret]), {t[j]}" for j in range(n)]
    L += [f"movq {t[j]}, {8*j}(%[ret])" for j in range(n)]
    name = f"redc_{n}_x86"
    out = [f"/* ret = t * 2^-{64*n} mod p, fully reduced, for t (2*{n} limbs) < p * 2^{64*n}\n"
           f" * (n0 = -p^-1 mod 2^64, a compile-time constant; p with a spare bit, a\n"
           f" * static array).  ret may alias neither t nor p. */"]
    out.append(f"ZK_HD void {name}(limb_t *ret, const limb_t *t, const limb_t *p, limb_t n0)")
    out += asm_block(n, L, f'          ZK_MONT_OUT_MEM({n}, ret)',
                     [f'        : [ret] "r"(ret), [t] "r"(t), [p] "m"(*(const limb_t(*)[{n}])p), [n0] "i"(n0)',
                      f'          ZK_MONT_IN_MEM1({2*n}, t)'])
    return "\n".join(out)

def main():
    print("""/*
 * mont_x86_64.h -- x86-64 MULX/ADCX/ADOX Montgomery multiplication for 4 and 6
 * limbs.  GENERATED by common/ff/gen_mont_x86_64.py; edit that, not this.
 *
 * Included by vec.h only when __x86_64__, __ADX__ and __BMI2__ are defined,
 * __CUDACC__ and ZK_NO_ASM are not, and the code is optimized (the 6-limb asm
 * needs 12 general registers, more than an unoptimized build leaves free; ret
 * is passed on the stack and loaded into b's register once b is dead, so it
 * fits with a frame pointer and sanitizers, GCC and clang).
 * n0 is an immediate operand ("i"), so callers pass a compile-time constant
 * (vec.h checks with __builtin_constant_p); p is a memory operand addressed as
 * "8*j+%[p]", which needs a symbol(%rip) or disp(%reg) form: pass a static
 * constant array (the field constants).
 *
 * Algorithm: interleaved CIOS with the "no final carry" shortcut (the top limb
 * of p is below 2^63 - 1, so the accumulator stays below 2p in n limbs and one
 * extra word).  Each round adds a*b[i] with two carry chains (ADOX for the low
 * halves, ADCX for the high halves), then adds m*p, m = t0*n0, the same way
 * and drops the zero low word (which then serves as the zero register that
 * absorbs the last carries).  The result (< 2p) is stored to ret, p is
 * subtracted in the registers and, on a borrow, the stored words are reloaded
 * with CMOV (store-to-load forwarding keeps that off the critical path and
 * needs no scratch registers); then the result is stored again.
 */
#ifndef ZK_COMMON_FF_MONT_X86_64_H
#define ZK_COMMON_FF_MONT_X86_64_H

/*
 * What the asm reads and writes in memory.  GCC: exact operands for ret, a
 * and b (n limbs each), so the compiler keeps everything else in registers
 * across the asm.  clang 14 gives every memory operand a register of its own
 * for the address (GCC reuses the one already holding a, b or ret), so the
 * 6-limb product would need 15 registers and fails with "inline assembly
 * requires more registers than available"; under clang the asm declares a
 * "memory" clobber instead, which needs no register.  The same shortage is
 * what crashed clang 14 on common/setup/setup.c under ASan+UBSan: after the
 * register allocator gave up on the 6-limb product inlined into
 * bls381_g1_batch_to_affine, its Machine Copy Propagation pass segfaulted
 * on what was left (a compiler bug, gone once the registers suffice).
 */
#if defined(__clang__)
# define ZK_MONT_OUT_MEM(n, r)
# define ZK_MONT_IN_MEM(n, a, b)
# define ZK_MONT_IN_MEM1(n, a)
# define ZK_MONT_CLOBBERS "cc", "memory"
#else
# define ZK_MONT_OUT_MEM(n, r) , "=m"(*(limb_t(*)[n])(r))
# define ZK_MONT_IN_MEM(n, a, b) , "m"(*(const limb_t(*)[n])(a)), "m"(*(const limb_t(*)[n])(b))
# define ZK_MONT_IN_MEM1(n, a) , "m"(*(const limb_t(*)[n])(a))
# define ZK_MONT_CLOBBERS "cc"
#endif
""")
    for n in (4, 6):
        print(mul_fn(n))
        print()
    for n in (4, 6):
        for op in ("add", "sub"):
            print(addsub_fn(n, op))
            print()
    for n in (4, 6):
        print(wide_fn(n))
        print()
        print(redc_fn(n))
        print()
    print("#endif /* ZK_COMMON_FF_MONT_X86_64_H */")

main()
