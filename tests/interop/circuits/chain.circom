pragma circom 2.0.0;
// A size-parameterized circuit: N multiplication constraints in a chain,
//   t[0] = x * y,  t[i] = t[i-1] * y + i,  out = t[N-1].
// No main component here: lib.sh (zk_chain_circuit N) writes a wrapper
// that includes this file and instantiates Chain(N), N >= 1.
template Chain(N) {
    signal input x;
    signal input y;
    signal output out;
    signal t[N];
    t[0] <== x * y;
    for (var i = 1; i < N; i++) {
        t[i] <== t[i - 1] * y + i;
    }
    out <== t[N - 1];
}
