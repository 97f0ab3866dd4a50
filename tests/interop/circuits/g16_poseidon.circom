pragma circom 2.0.0;
include "../node_modules/circomlib/circuits/poseidon.circom";
// circomlib Poseidon over three inputs, one of them public.
template H() {
    signal input x[3];
    signal output h;
    component p = Poseidon(3);
    for (var i = 0; i < 3; i++) p.inputs[i] <== x[i];
    h <== p.out;
}
component main {public [x]} = H();
