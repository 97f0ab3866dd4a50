pragma circom 2.0.0;
include "../node_modules/circomlib/circuits/poseidon.circom";
// Benchmark circuit: a chain of 265 circomlib Poseidon(2) hashes, about
// 2^16 constraints (domain 2^16).  Used for `zkslot bench prove` against
// `snarkjs groth16 prove`.
template Chain(N) {
    signal input x[2];
    signal output out;
    component h[N];
    for (var i = 0; i < N; i++) {
        h[i] = Poseidon(2);
        h[i].inputs[0] <== i == 0 ? x[0] : h[i-1].out;
        h[i].inputs[1] <== x[1];
    }
    out <== h[N-1].out;
}
component main {public [x]} = Chain(265);
