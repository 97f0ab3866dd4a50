pragma circom 2.0.0;
include "../node_modules/circomlib/circuits/mimc.circom";
// Benchmark circuit: 64 chained circomlib MiMC7 hashes (91 rounds each,
// about 23,000 constraints, domain 2^15, BN254): every witness value is a
// full-width field element, unlike SHA-256's bits.  The input is x and the
// key k; the output the last hash.  tools/bench-prove.sh --circuit
// g16_bench_mimc (input g16_bench_mimc.input.json).
template MiMCChain(n) {
    signal input x;
    signal input k;
    signal output out;
    component m[n];
    for (var i = 0; i < n; i++) {
        m[i] = MiMC7(91);
        m[i].x_in <== i == 0 ? x : m[i - 1].out;
        m[i].k <== k;
    }
    out <== m[n - 1].out;
}
component main {public [x]} = MiMCChain(64);
