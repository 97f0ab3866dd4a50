pragma circom 2.0.0;
// A circomlib circuit: Poseidon hash of two field elements, one of them public.
include "circomlib/circuits/poseidon.circom";

template PoseidonHash() {
    signal input a;
    signal input b;
    signal output h;
    component p = Poseidon(2);
    p.inputs[0] <== a;
    p.inputs[1] <== b;
    h <== p.out;
}

component main {public [a]} = PoseidonHash();
