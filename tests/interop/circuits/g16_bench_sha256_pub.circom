pragma circom 2.0.0;
include "../node_modules/circomlib/circuits/sha256/sha256.circom";
include "../node_modules/circomlib/circuits/bitify.circom";
// Benchmark circuit: circomlib SHA-256 of a 119-byte message, like
// g16_bench_sha256, but the digest's 256 bits are 256 public outputs (the
// IC MSM and public.json of a circuit with many public signals; domain
// 2^16, BN254).  tools/bench-prove.sh --circuit g16_bench_sha256_pub.
template Sha256Pub(nBytes) {
    signal input x[2];
    signal output out[256];
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
    for (var i = 0; i < 256; i++) out[i] <== h.out[i];
}
component main {public [x]} = Sha256Pub(119);
