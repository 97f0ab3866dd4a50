//! Groth16 parameters of the 2 KiB circuits, made the way upstream's own
//! parameter code makes them when given an RNG: the compound proof's
//! groth_params(Some(rng)) (bellperson's generate_random_parameters on the
//! blank circuit, written to the cache as v28-<circuit id>.params),
//! verifying_key (.vk) and get_param_metadata (.meta), into the directory of
//! FIL_PROOFS_PARAMETER_CACHE, so that filecoin-proofs' own provers and
//! verifiers load them.  The RNG is ChaCha20 seeded from --seed and the
//! circuit's index: these are secret-less TEST parameters (anyone who knows
//! the seed knows the toxic waste).

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{anyhow, Result};
use bellperson::{Circuit, ConstraintSystem, Index, LinearCombination, SynthesisError, Variable};
use blstrs::Scalar as Fr;
use filecoin_proofs::{
    parameters::{public_params, window_post_public_params, winning_post_public_params},
    DefaultPieceHasher,
};
use filecoin_proofs_api::{RegisteredPoStProof, RegisteredSealProof, RegisteredUpdateProof};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use storage_proofs_core::{
    compound_proof::CompoundProof,
    parameter_cache::{
        parameter_cache_metadata_path, parameter_cache_params_path, parameter_cache_verifying_key_path,
        CacheableParameters,
    },
};
use storage_proofs_porep::stacked::{StackedCircuit, StackedCompound, StackedDrg};
use storage_proofs_post::fallback::{FallbackPoSt, FallbackPoStCircuit, FallbackPoStCompound};
use storage_proofs_update::{EmptySectorUpdate, EmptySectorUpdateCircuit, EmptySectorUpdateCompound};

use crate::inputs::Kind;
use crate::synth::Tree;

type G = DefaultPieceHasher;

/// Counts what bellperson's generator sees: inputs (with ONE), aux,
/// constraints.  Values are never asked for (the blank circuit has none).
#[derive(Default)]
pub struct Count {
    pub inputs: usize,
    pub aux: usize,
    pub constraints: usize,
}

impl ConstraintSystem<Fr> for Count {
    type Root = Self;
    fn alloc<F, A, AR>(&mut self, _: A, _: F) -> Result<Variable, SynthesisError>
    where F: FnOnce() -> Result<Fr, SynthesisError>, A: FnOnce() -> AR, AR: Into<String> {
        self.aux += 1;
        Ok(Variable::new_unchecked(Index::Aux(self.aux - 1)))
    }
    fn alloc_input<F, A, AR>(&mut self, _: A, _: F) -> Result<Variable, SynthesisError>
    where F: FnOnce() -> Result<Fr, SynthesisError>, A: FnOnce() -> AR, AR: Into<String> {
        self.inputs += 1;
        Ok(Variable::new_unchecked(Index::Input(self.inputs - 1)))
    }
    fn enforce<A, AR, LA, LB, LC>(&mut self, _: A, _: LA, _: LB, _: LC)
    where A: FnOnce() -> AR, AR: Into<String>,
          LA: FnOnce(LinearCombination<Fr>) -> LinearCombination<Fr>,
          LB: FnOnce(LinearCombination<Fr>) -> LinearCombination<Fr>,
          LC: FnOnce(LinearCombination<Fr>) -> LinearCombination<Fr> {
        self.constraints += 1;
    }
    fn push_namespace<NR, N>(&mut self, _: N) where NR: Into<String>, N: FnOnce() -> NR {}
    fn pop_namespace(&mut self) {}
    fn get_root(&mut self) -> &mut Self::Root { self }
}

pub fn count<C: Circuit<Fr>>(c: C) -> Result<Count> {
    let mut cs = Count { inputs: 1, ..Default::default() };
    c.synthesize(&mut cs).map_err(|e| anyhow!("counting the blank circuit: {}", e))?;
    Ok(cs)
}

pub fn describe(cs: &Count) -> String {
    let rows = cs.constraints + cs.inputs;
    let m = rows.next_power_of_two();
    format!(
        "{} constraints + {} input rows = {} (domain 2^{}), {} inputs with ONE, {} aux",
        cs.constraints, cs.inputs, rows, m.trailing_zeros(), cs.inputs, cs.aux
    )
}

fn seed_for(seed: u64, index: u64) -> [u8; 32] {
    let mut s = [0u8; 32];
    s[..8].copy_from_slice(&seed.to_le_bytes());
    s[8..16].copy_from_slice(&index.to_le_bytes());
    s[16..].copy_from_slice(b"zkslot-fil-test-");
    s
}

fn report(name: &str, id: &str, cs: &Count, made: Option<f64>) {
    let files = [parameter_cache_params_path(id), parameter_cache_verifying_key_path(id), parameter_cache_metadata_path(id)];
    let what = match made {
        Some(t) => format!("generated in {:.1} s", t),
        None => "exists, skipped".to_string(),
    };
    println!("{}: {} ({})", name, describe(cs), what);
    for f in files {
        let len = std::fs::metadata(&f).map(|m| m.len()).unwrap_or(0);
        println!("  {} ({} bytes)", f.display(), len);
    }
}

fn all_exist(id: &str) -> bool {
    let f: [PathBuf; 3] = [parameter_cache_params_path(id), parameter_cache_verifying_key_path(id), parameter_cache_metadata_path(id)];
    f.iter().all(|p| p.exists())
}

macro_rules! make {
    ($name:expr, $index:expr, $seed:expr, $compound:ty, $scheme:ty, $circuit:ty, $pp:expr) => {{
        let pp = $pp;
        let id = <$compound as CacheableParameters<$circuit, _>>::cache_identifier(&pp);
        let blank = <$compound as CompoundProof<$scheme, $circuit>>::blank_circuit(&pp);
        let cs = count(blank)?;
        let made = if all_exist(&id) {
            None
        } else {
            let t = Instant::now();
            let mut rng = ChaCha20Rng::from_seed(seed_for($seed, $index));
            <$compound as CompoundProof<$scheme, $circuit>>::groth_params(Some(&mut rng), &pp)?;
            <$compound as CompoundProof<$scheme, $circuit>>::verifying_key(Some(&mut rng), &pp)?;
            let blank = <$compound as CompoundProof<$scheme, $circuit>>::blank_circuit(&pp);
            <$compound as CacheableParameters<$circuit, _>>::get_param_metadata(blank, &pp)?;
            Some(t.elapsed().as_secs_f64())
        };
        report($name, &id, &cs, made);
    }};
}

pub fn generate(sector_size: u64, seed: u64, kinds: &[Kind]) -> Result<()> {
    crate::synth::check_size(sector_size)?;
    println!(
        "TEST PARAMETERS: generated here from a seeded ChaCha20 RNG (seed {}), secret-less: \
         never use them for anything but tests",
        seed
    );
    let seal = RegisteredSealProof::StackedDrg2KiBV1_1;
    let winning = RegisteredPoStProof::StackedDrgWinning2KiBV1;
    let window = RegisteredPoStProof::StackedDrgWindow2KiBV1_2;
    let snap = RegisteredUpdateProof::StackedDrg2KiBV1;

    if kinds.contains(&Kind::Porep) {
        make!("porep (StackedDrg2KiBV1_1)", 0, seed, StackedCompound<Tree, G>, StackedDrg<'_, Tree, G>,
              StackedCircuit<Tree, G>, public_params::<Tree>(&seal.as_v1_config())?);
    }
    if kinds.contains(&Kind::Winning) {
        make!("winning (StackedDrgWinning2KiBV1)", 1, seed, FallbackPoStCompound<Tree>, FallbackPoSt<'_, Tree>,
              FallbackPoStCircuit<Tree>, winning_post_public_params::<Tree>(&winning.as_v1_config())?);
    }
    if kinds.contains(&Kind::Window) {
        make!("window (StackedDrgWindow2KiBV1_2)", 2, seed, FallbackPoStCompound<Tree>, FallbackPoSt<'_, Tree>,
              FallbackPoStCircuit<Tree>, window_post_public_params::<Tree>(&window.as_v1_config())?);
    }
    if kinds.contains(&Kind::Snap) {
        make!("snap (StackedDrg2KiBV1 update)", 3, seed, EmptySectorUpdateCompound<Tree>, EmptySectorUpdate<Tree>,
              EmptySectorUpdateCircuit<Tree>,
              storage_proofs_update::PublicParams::from_sector_size(u64::from(snap.sector_size())));
    }
    Ok(())
}
