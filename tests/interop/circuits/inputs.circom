pragma circom 2.0.0;
// For jobs from circuit inputs (tests/pipeline/lib_inputs.sh): Chain(N)
// over x and y, plus a flag b that must be 0 or 1.  b * (b - 1) === 0 is
// checked by the witness generators as they run, so {"b": "2"} is an input
// the circuit rejects ("Assert Failed"), and an unknown or missing signal
// name is one the generators refuse before computing anything.
include "chain.circom";

template Inputs(N) {
    signal input x;
    signal input y;
    signal input b;
    signal output out;
    component c = Chain(N);
    c.x <== x;
    c.y <== y;
    b * (b - 1) === 0;
    out <== c.out + b;
}

component main {public [x]} = Inputs(600);
