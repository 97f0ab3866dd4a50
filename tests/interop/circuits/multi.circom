pragma circom 2.0.0;
// Several public inputs (a, b, c) and outputs (x, y, z), one private input d.
// Public signals come out as [x, y, z, a, b, c].
template Multi() {
    signal input a;
    signal input b;
    signal input c;
    signal input d;
    signal output x;
    signal output y;
    signal output z;
    signal t;
    x <== a * b;
    t <== x * c;
    y <== t + d;
    z <== y * y - a;
}

component main {public [a, b, c]} = Multi();
