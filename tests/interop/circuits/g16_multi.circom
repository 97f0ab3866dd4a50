pragma circom 2.0.0;
// Several public inputs and outputs (zkslot Groth16 interop tests).
template Multi() {
    signal input a;
    signal input b;
    signal input c;
    signal input d;
    signal output y;
    signal output z;
    signal output u;
    signal t;
    signal s;
    t <== a * b;
    s <== t * c + d;
    y <== s * s;
    z <== t + c - 5 * d;
    u <== y * a;
}
component main {public [a, b, d]} = Multi();
