pragma circom 2.0.0;
include "../node_modules/circomlib/circuits/sha256/sha256.circom";
include "../node_modules/circomlib/circuits/bitify.circom";
// Benchmark circuit: circomlib SHA-256 of a 119-byte message (two 512-bit
// blocks after padding), about 60,000 constraints (domain 2^16, BN254).
// The message repeats the 128 bits of the two 64-bit inputs x (the input
// tools/bench-snarkjs.sh gives every circuit), so every bit is a signal
// and nothing folds to a constant.  The digest's two 128-bit halves are
// the outputs.  tools/bench-snarkjs.sh --circuit g16_bench_sha256.
template Sha256Bench(nBytes) {
    signal input x[2];
    signal output hi;
    signal output lo;
    component b0 = Num2Bits(64);
    component b1 = Num2Bits(64);
    b0.in <== x[0];
    b1.in <== x[1];
    component h = Sha256(nBytes * 8);
    for (var i = 0; i < nBytes * 8; i++) {
        var j = i % 128;
        if (j < 64) {
            h.in[i] <== b0.out[j];
        } else {
            h.in[i] <== b1.out[j - 64];
        }
    }
    component a = Bits2Num(128);
    component b = Bits2Num(128);
    for (var i = 0; i < 128; i++) {
        a.in[127 - i] <== h.out[i];
        b.in[127 - i] <== h.out[128 + i];
    }
    hi <== a.out;
    lo <== b.out;
}
component main {public [x]} = Sha256Bench(119);
