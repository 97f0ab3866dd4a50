//! The proving assignment exactly as bellperson's prover builds it
//! (ProvingAssignment, private there): aux and input values, one a/b/c
//! evaluation per constraint, and the density bits of A's aux, B's inputs
//! and B's aux, set for every variable that occurs with a non-zero
//! coefficient.  After the circuit, one constraint per input (A = input,
//! B = C = 0), as bellperson's synthesis appends.  write_bpa writes it in
//! zkslot's .bpa layout (docs/bellperson.md).

use std::io::{self, Write};

use bellperson::{Circuit, ConstraintSystem, Index, LinearCombination, SynthesisError, Variable};
use blstrs::Scalar as Fr;
use ff::{Field, PrimeField};

/// A bit vector, LSB-first in 64-bit words.
#[derive(Default)]
pub struct Density {
    pub bits: Vec<u64>,
    pub len: usize,
}

impl Density {
    fn push(&mut self) {
        if self.len % 64 == 0 { self.bits.push(0) }
        self.len += 1;
    }
    fn set(&mut self, i: usize) { self.bits[i / 64] |= 1u64 << (i % 64) }
}

#[derive(Default)]
pub struct Assignment {
    pub input: Vec<Fr>,
    pub aux: Vec<Fr>,
    pub a: Vec<Fr>,
    pub b: Vec<Fr>,
    pub c: Vec<Fr>,
    pub a_aux: Density,
    pub b_input: Density,
    pub b_aux: Density,
}

fn eval(lc: &LinearCombination<Fr>, mut din: Option<&mut Density>, mut daux: Option<&mut Density>,
        input: &[Fr], aux: &[Fr]) -> Fr {
    let mut acc = Fr::ZERO;
    for (i, coeff) in lc.iter_inputs() {
        if !coeff.is_zero_vartime() {
            acc += input[*i] * coeff;
            if let Some(d) = din.as_deref_mut() { d.set(*i) }
        }
    }
    for (i, coeff) in lc.iter_aux() {
        if !coeff.is_zero_vartime() {
            acc += aux[*i] * coeff;
            if let Some(d) = daux.as_deref_mut() { d.set(*i) }
        }
    }
    acc
}

impl ConstraintSystem<Fr> for Assignment {
    type Root = Self;

    fn alloc<F, A, AR>(&mut self, _: A, f: F) -> Result<Variable, SynthesisError>
    where F: FnOnce() -> Result<Fr, SynthesisError>, A: FnOnce() -> AR, AR: Into<String> {
        self.aux.push(f()?);
        self.a_aux.push();
        self.b_aux.push();
        Ok(Variable::new_unchecked(Index::Aux(self.aux.len() - 1)))
    }

    fn alloc_input<F, A, AR>(&mut self, _: A, f: F) -> Result<Variable, SynthesisError>
    where F: FnOnce() -> Result<Fr, SynthesisError>, A: FnOnce() -> AR, AR: Into<String> {
        self.input.push(f()?);
        self.b_input.push();
        Ok(Variable::new_unchecked(Index::Input(self.input.len() - 1)))
    }

    fn enforce<A, AR, LA, LB, LC>(&mut self, _: A, a: LA, b: LB, c: LC)
    where A: FnOnce() -> AR, AR: Into<String>,
          LA: FnOnce(LinearCombination<Fr>) -> LinearCombination<Fr>,
          LB: FnOnce(LinearCombination<Fr>) -> LinearCombination<Fr>,
          LC: FnOnce(LinearCombination<Fr>) -> LinearCombination<Fr> {
        let (a, b, c) = (a(LinearCombination::zero()), b(LinearCombination::zero()), c(LinearCombination::zero()));
        let va = eval(&a, None, Some(&mut self.a_aux), &self.input, &self.aux);
        let vb = eval(&b, Some(&mut self.b_input), Some(&mut self.b_aux), &self.input, &self.aux);
        let vc = eval(&c, None, None, &self.input, &self.aux);
        self.a.push(va);
        self.b.push(vb);
        self.c.push(vc);
    }

    fn push_namespace<NR, N>(&mut self, _: N) where NR: Into<String>, N: FnOnce() -> NR {}
    fn pop_namespace(&mut self) {}
    fn get_root(&mut self) -> &mut Self::Root { self }
}

/// bellperson's synthesis: input 0 = ONE, the circuit, then A = input_i.
pub fn synthesize<C: Circuit<Fr>>(circuit: C) -> Result<Assignment, SynthesisError> {
    let mut cs = Assignment::default();
    cs.alloc_input(|| "", || Ok(Fr::ONE))?;
    circuit.synthesize(&mut cs)?;
    for i in 0..cs.input.len() {
        cs.enforce(|| "", |lc| lc + Variable::new_unchecked(Index::Input(i)), |lc| lc, |lc| lc);
    }
    Ok(cs)
}

fn put_u32(w: &mut impl Write, v: u32) -> io::Result<()> { w.write_all(&v.to_le_bytes()) }
fn put_u64(w: &mut impl Write, v: u64) -> io::Result<()> { w.write_all(&v.to_le_bytes()) }
fn put_fr(w: &mut impl Write, v: &[Fr]) -> io::Result<()> {
    for x in v { w.write_all(x.to_repr().as_ref())? }
    Ok(())
}
fn put_bits(w: &mut impl Write, d: &Density, len: usize) -> io::Result<()> {
    assert_eq!(d.len, len);
    for x in &d.bits { put_u64(w, *x)? }
    Ok(())
}

impl Assignment {
    /// .bpa: "ZKBPASN1", u32 version 1, u32 flags 0, u64 inputs, u64 aux,
    /// u64 constraints, then inputs, aux, a, b, c (32-byte little-endian
    /// canonical each), then the bitmaps a_aux, b_input, b_aux (u64 words,
    /// ceil(len/64) each).  All integers little-endian.
    pub fn write_bpa(&self, w: &mut impl Write) -> io::Result<()> {
        w.write_all(b"ZKBPASN1")?;
        put_u32(w, 1)?;
        put_u32(w, 0)?;
        put_u64(w, self.input.len() as u64)?;
        put_u64(w, self.aux.len() as u64)?;
        put_u64(w, self.a.len() as u64)?;
        put_fr(w, &self.input)?;
        put_fr(w, &self.aux)?;
        put_fr(w, &self.a)?;
        put_fr(w, &self.b)?;
        put_fr(w, &self.c)?;
        put_bits(w, &self.a_aux, self.aux.len())?;
        put_bits(w, &self.b_input, self.input.len())?;
        put_bits(w, &self.b_aux, self.aux.len())
    }
}
