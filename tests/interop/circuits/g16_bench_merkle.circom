pragma circom 2.0.0;
include "../node_modules/circomlib/circuits/poseidon.circom";
include "../node_modules/circomlib/circuits/bitify.circom";
// Benchmark circuit: membership in a Poseidon Merkle tree of depth 20
// (circomlib Poseidon(2) per level, the sibling ordered by the path bit;
// about 5,400 constraints, BN254).  The leaf is public, the root the
// output; siblings are full-width field elements.  tools/bench-prove.sh
// --circuit g16_bench_merkle (input g16_bench_merkle.input.json).
template MerklePath(depth) {
    signal input leaf;
    signal input siblings[depth];
    signal input bits[depth];
    signal output root;
    component h[depth];
    signal cur[depth + 1];
    signal l[depth];
    signal r[depth];
    cur[0] <== leaf;
    for (var i = 0; i < depth; i++) {
        bits[i] * (1 - bits[i]) === 0;
        // left = bit ? sibling : cur, right = bit ? cur : sibling
        l[i] <== cur[i] + bits[i] * (siblings[i] - cur[i]);
        r[i] <== siblings[i] + cur[i] - l[i];
        h[i] = Poseidon(2);
        h[i].inputs[0] <== l[i];
        h[i].inputs[1] <== r[i];
        cur[i + 1] <== h[i].out;
    }
    root <== cur[depth];
}
component main {public [leaf]} = MerklePath(20);
