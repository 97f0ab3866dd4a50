//! The test circuits (BLS12-381 scalars), each filling a domain of about
//! 2^log2:
//! - "chain": x (public) through rounds of t = y*y, y' = t*y + c_i; the
//!   last y is public.  Exactly 2^log2 constraints with bellperson's input
//!   constraints.  Its corners exercise the densities: an aux that occurs
//!   only in C, an aux that occurs in A only with a zero coefficient (so not
//!   in A's density) and in B, a public input that is not in B.
//! - "gadgets": bellperson's own gadgets: SHA-256 (UInt32, Boolean,
//!   multieq) of a message of 2^(log2-16) blocks (at least 1) and BLAKE2s of
//!   32 bytes, both digests packed into public inputs (multipack).
//! Witness values come from a ChaCha20 seed; without a seed (key
//! generation) no value is computed.

use bellperson::gadgets::boolean::{AllocatedBit, Boolean};
use bellperson::gadgets::{blake2s::blake2s, multipack, sha256::sha256};
use bellperson::{Circuit, ConstraintSystem, SynthesisError};
use blstrs::Scalar as Fr;
use ff::Field;
use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};

#[derive(Clone, Copy)]
enum Kind { Chain, Gadgets }

pub struct TestCircuit {
    kind: Kind,
    log2: u32,
    seed: Option<u64>,
}

impl TestCircuit {
    pub fn new(name: &str, log2: u32, seed: Option<u64>) -> Result<TestCircuit, String> {
        let kind = match name {
            "chain" => Kind::Chain,
            "gadgets" => Kind::Gadgets,
            _ => return Err(format!("unknown circuit {name} (chain, gadgets)")),
        };
        if !(4..=26).contains(&log2) { return Err(format!("--log2 {log2}: not in 4..26")) }
        Ok(TestCircuit { kind, log2, seed })
    }
}

fn val<T: Copy>(v: Option<T>) -> Result<T, SynthesisError> { v.ok_or(SynthesisError::AssignmentMissing) }

fn chain<CS: ConstraintSystem<Fr>>(cs: &mut CS, log2: u32, seed: Option<u64>) -> Result<(), SynthesisError> {
    let one = CS::one();
    let x = seed.map(|s| Fr::random(ChaCha20Rng::seed_from_u64(s)));
    let xin = cs.alloc_input(|| "x", || val(x))?;
    let pv = x.map(|x| x.double());
    let pin = cs.alloc_input(|| "p", || val(pv))?;
    // 4 inputs (ONE, x, p, out): 4 appended constraints; 5 here; 2 a round
    let rounds = ((1usize << log2) - 4 - 5) / 2;
    let mut y = x;
    let mut yv = cs.alloc(|| "y0", || val(y))?;
    cs.enforce(|| "y0 = x", |lc| lc + xin, |lc| lc + one, |lc| lc + yv);
    let first = (yv, y);
    let (mut second_v, mut second) = (yv, y);
    for i in 0..rounds {
        let c = Fr::from(i as u64 + 7);
        let t = y.map(|y| y.square());
        let tv = cs.alloc(|| "t", || val(t))?;
        cs.enforce(|| "t = y^2", |lc| lc + yv, |lc| lc + yv, |lc| lc + tv);
        let y2 = t.zip(y).map(|(t, y)| t * y + c);
        let y2v = cs.alloc(|| "y", || val(y2))?;
        cs.enforce(|| "y' = t y + c", |lc| lc + tv, |lc| lc + yv, |lc| lc + y2v - (c, one));
        if i == 0 { (second_v, second) = (y2v, y2) }
        y = y2;
        yv = y2v;
    }
    // z = y0 + y1: z in C only
    let z = first.1.zip(second).map(|(a, b)| a + b);
    let zv = cs.alloc(|| "z", || val(z))?;
    cs.enforce(|| "z", |lc| lc + first.0 + second_v, |lc| lc + one, |lc| lc + zv);
    // u in B, in A with a zero coefficient only
    let u = Some(Fr::from(5u64)).filter(|_| seed.is_some());
    let uv = cs.alloc(|| "u", || val(u))?;
    let w = first.1.zip(u).map(|(a, b)| a * b);
    let wv = cs.alloc(|| "w", || val(w))?;
    cs.enforce(|| "w = y0 u", |lc| lc + first.0 + (Fr::ZERO, uv), |lc| lc + uv, |lc| lc + wv);
    // p in A only (not in B)
    let q = pv;
    let qv = cs.alloc(|| "q", || val(q))?;
    cs.enforce(|| "q = p", |lc| lc + pin, |lc| lc + one, |lc| lc + qv);
    let out = cs.alloc_input(|| "out", || val(y))?;
    cs.enforce(|| "out", |lc| lc + yv, |lc| lc + one, |lc| lc + out);
    Ok(())
}

fn bits<CS: ConstraintSystem<Fr>>(cs: &mut CS, name: &str, bytes: Option<&[u8]>, len: usize)
    -> Result<Vec<Boolean>, SynthesisError> {
    let mut out = Vec::with_capacity(len * 8);
    for i in 0..len * 8 {
        let b = bytes.map(|v| (v[i / 8] >> (7 - i % 8)) & 1 == 1);
        out.push(Boolean::from(AllocatedBit::alloc(cs.namespace(|| format!("{name} bit {i}")), b)?));
    }
    Ok(out)
}

fn gadgets<CS: ConstraintSystem<Fr>>(cs: &mut CS, log2: u32, seed: Option<u64>) -> Result<(), SynthesisError> {
    let blocks = 1usize << log2.saturating_sub(16);
    let mlen = blocks * 64 - 9;
    let data = seed.map(|s| {
        let mut v = vec![0u8; mlen + 32];
        ChaCha20Rng::seed_from_u64(s).fill_bytes(&mut v);
        v
    });
    let m = bits(cs, "m", data.as_deref().map(|d| &d[..mlen]), mlen)?;
    let h = sha256(cs.namespace(|| "sha256"), &m)?;
    multipack::pack_into_inputs(cs.namespace(|| "sha256 out"), &h)?;
    let k = bits(cs, "k", data.as_deref().map(|d| &d[mlen..]), 32)?;
    let h2 = blake2s(cs.namespace(|| "blake2s"), &k, b"zkslotbp")?;
    multipack::pack_into_inputs(cs.namespace(|| "blake2s out"), &h2)
}

impl Circuit<Fr> for TestCircuit {
    fn synthesize<CS: ConstraintSystem<Fr>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        match self.kind {
            Kind::Chain => chain(cs, self.log2, self.seed),
            Kind::Gadgets => gadgets(cs, self.log2, self.seed),
        }
    }
}
