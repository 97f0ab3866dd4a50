pragma circom 2.0.0;
// The main job's circuit (tools/demo.sh): SHA-256 of a 55-byte message
// (one 512-bit block after padding), about 30,000 constraints, from
// circomlib.  The message is the input, as bits, most significant bit of
// each byte first; the digest comes out as two public 128-bit halves, so
// a proof shows "I know a message whose SHA-256 is hi || lo".
include "circomlib/circuits/sha256/sha256.circom";
include "circomlib/circuits/bitify.circom";

template Sha256Demo(nBytes) {
    signal input in[nBytes * 8];
    signal output hi;
    signal output lo;
    component h = Sha256(nBytes * 8);
    for (var i = 0; i < nBytes * 8; i++) {
        h.in[i] <== in[i];
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

component main = Sha256Demo(55);
