//! Partition k's circuit of each kind, built from the real inputs with the
//! upstream compound proof's `circuit(...)`, the way filecoin-proofs' own
//! provers build it before create_random_proof_batch:
//!
//! - porep: seal_commit_phase2_circuit_proofs: stacked::PublicInputs from
//!   the C1 output (replica_id, comm_d, comm_r, seed; k None), the compound
//!   setup with the config's partitions, StackedCompound::circuit(pub_in,
//!   (), vanilla_proofs[k], vanilla_params, Some(k)).
//! - winning / window: generate_{winning,window}_post_with_vanilla: public
//!   sectors from the vanilla proofs, partition_vanilla_proofs (which also
//!   checks them), FallbackPoStCompound::circuit(pub_in, default,
//!   partitioned[k], vanilla_params, Some(k)).
//! - snap: generate_empty_sector_update_proof_with_vanilla: PublicInputs
//!   with k = partitions and h of the config, EmptySectorUpdateCompound::
//!   circuit(pub_in, (), vanilla_proofs[k], vanilla_params, Some(k)).
//!
//! Before synthesis the vanilla proofs are checked against the public
//! inputs (the upstream vanilla verifiers), so that the input of another
//! sector is refused with a reason instead of giving a proof that only the
//! verifier rejects.  Only 2 KiB sectors are built in for now.

use std::path::PathBuf;

use anyhow::{anyhow, bail, ensure, Context, Result};
use bellperson::Circuit;
use blstrs::Scalar as Fr;
use filecoin_hashers::{Domain, Hasher};
use filecoin_proofs::{
    as_safe_commitment, parameters::{window_post_setup_params, winning_post_setup_params},
    partition_vanilla_proofs, DefaultPieceDomain, DefaultPieceHasher, FallbackPoStSectorProof,
    PoStType, SectorShape2KiB, SectorUpdateConfig, TreeRHasher,
};
use storage_proofs_core::{
    compound_proof::{self, CompoundProof},
    merkle::MerkleTreeTrait,
    parameter_cache::{parameter_cache_params_path, CacheableParameters},
    proof::ProofScheme,
};
use storage_proofs_porep::stacked::{self, StackedCircuit, StackedCompound, StackedDrg};
use storage_proofs_post::fallback::{self, FallbackPoSt, FallbackPoStCircuit, FallbackPoStCompound, PublicSector};
use storage_proofs_update::{
    EmptySectorUpdate, EmptySectorUpdateCircuit, EmptySectorUpdateCompound, PartitionProof,
    PublicInputs as UpdatePublicInputs, SetupParams as UpdateSetupParams,
};
use zkslot_bp_oracle::assign::{self, Assignment};

use crate::inputs::{Kind, Post, Snap, C1};

pub type Tree = SectorShape2KiB;
pub type TreeDomain = <<Tree as MerkleTreeTrait>::Hasher as Hasher>::Domain;
type G = DefaultPieceHasher;

pub fn check_size(size: u64) -> Result<()> {
    if size != 2048 {
        bail!("sector size {}: only 2048 (2 KiB) is built into this version", size);
    }
    Ok(())
}

fn synthesize<C: Circuit<Fr>>(c: C) -> Result<Assignment> {
    assign::synthesize(c).map_err(|e| anyhow!("synthesis failed: {}", e))
}

/// What a kind's input gives: its partitions and the parameter file.
pub struct Plan {
    pub partitions: usize,
    pub params: PathBuf,
}

// ---------------------------------------------------------------- PoRep

pub(crate) struct Porep {
    pub pub_in: stacked::PublicInputs<TreeDomain, DefaultPieceDomain>,
    pub pp: stacked::PublicParams<Tree>,
    pub proofs: Vec<Vec<filecoin_proofs::VanillaSealProof<Tree>>>,
}

/// The public side of a PoRep C2 from the C1 output's fields (also what a
/// part file holds): the stacked public inputs and the vanilla parameters.
pub(crate) fn porep_public(
    rp: filecoin_proofs_api::RegisteredSealProof,
    comm_r: &[u8; 32],
    comm_d: &[u8; 32],
    replica_id: Fr,
    seed: &[u8; 32],
) -> Result<(stacked::PublicInputs<TreeDomain, DefaultPieceDomain>, stacked::PublicParams<Tree>)> {
    check_size(u64::from(rp.sector_size()))?;
    ensure!(*comm_d != [0; 32], "Invalid all zero commitment (comm_d)");
    ensure!(*comm_r != [0; 32], "Invalid all zero commitment (comm_r)");
    ensure!(*seed != [0; 32], "Invalid porep challenge seed");
    let cfg = rp.as_v1_config();
    let comm_r: TreeDomain = as_safe_commitment(comm_r, "comm_r")?;
    let comm_d = DefaultPieceDomain::try_from_bytes(comm_d).context("comm_d")?;
    let pub_in = stacked::PublicInputs {
        replica_id: replica_id.into(),
        tau: Some(stacked::Tau { comm_d, comm_r }),
        k: None,
        seed: Some(*seed),
    };
    let setup = compound_proof::SetupParams {
        vanilla_params: filecoin_proofs::parameters::setup_params(&cfg)?,
        partitions: Some(usize::from(cfg.partitions)),
        priority: false,
    };
    let cpp = <StackedCompound<Tree, G> as CompoundProof<StackedDrg<'_, Tree, G>, StackedCircuit<Tree, G>>>::setup(&setup)?;
    Ok((pub_in, cpp.vanilla_params))
}

pub(crate) fn porep_setup(c1: &C1) -> Result<Porep> {
    let p = &c1.phase1;
    let cfg = p.registered_proof.as_v1_config();
    check_size(u64::from(p.registered_proof.sector_size()))?;
    let proofs: Vec<Vec<filecoin_proofs::VanillaSealProof<Tree>>> = p
        .vanilla_proofs
        .clone()
        .try_into()
        .map_err(|e: anyhow::Error| anyhow!("vanilla_proofs: {}", e))?;
    ensure!(
        !proofs.is_empty() && proofs.iter().all(|x| !x.is_empty()),
        "C1 output contains no vanilla proofs"
    );
    ensure!(
        proofs.len() == usize::from(cfg.partitions),
        "{} partitions of vanilla proofs, {:?} has {}",
        proofs.len(),
        p.registered_proof,
        usize::from(cfg.partitions)
    );
    let replica_id: Fr = p.replica_id.into();
    let (pub_in, pp) = porep_public(p.registered_proof, &p.comm_r, &p.comm_d, replica_id, &p.seed)?;
    Ok(Porep { pub_in, pp, proofs })
}

/// Partition k's vanilla proofs checked against the public inputs alone:
/// the body of upstream's StackedDrg::verify_all_partitions for one k (the
/// stacked scheme has no one-partition verify): comm_r from comm_c and
/// comm_r_last, partition k's challenges, each challenge's proof.
pub(crate) fn porep_check_partition(
    pub_in: &stacked::PublicInputs<TreeDomain, DefaultPieceDomain>,
    pp: &stacked::PublicParams<Tree>,
    proofs: &[filecoin_proofs::VanillaSealProof<Tree>],
    k: usize,
) -> Result<()> {
    use filecoin_hashers::HashFunction;
    use storage_proofs_core::drgraph::Graph;
    let bad = || anyhow!("the vanilla proofs of partition {} do not verify against replica_id, comm_d, comm_r and seed (another sector's?)", k);
    ensure!(!proofs.is_empty(), "no vanilla proofs");
    let tau = pub_in.tau.as_ref().ok_or_else(bad)?;
    let (comm_c, comm_r_last) = (proofs[0].comm_c(), proofs[0].comm_r_last());
    let comm_r = <<Tree as MerkleTreeTrait>::Hasher as Hasher>::Function::hash2(&comm_c, &comm_r_last);
    ensure!(comm_r == tau.comm_r, "{}", bad());
    let challenges = pub_in.challenges(&pp.challenges, pp.graph.size(), Some(k));
    ensure!(
        challenges.len() == proofs.len(),
        "partition {}: {} vanilla proofs for {} challenges",
        k,
        proofs.len(),
        challenges.len()
    );
    for (proof, c) in proofs.iter().zip(challenges) {
        ensure!(proof.comm_c() == comm_c && proof.comm_r_last() == comm_r_last, "{}", bad());
        ensure!(proof.verify(pp, pub_in, c, &pp.graph), "{}", bad());
    }
    Ok(())
}

/// Partition k's PoRep circuit synthesized.
pub(crate) fn porep_synth(
    pub_in: &stacked::PublicInputs<TreeDomain, DefaultPieceDomain>,
    pp: &stacked::PublicParams<Tree>,
    proofs: &[filecoin_proofs::VanillaSealProof<Tree>],
    k: usize,
) -> Result<Assignment> {
    let c = <StackedCompound<Tree, G> as CompoundProof<StackedDrg<'_, Tree, G>, StackedCircuit<Tree, G>>>::circuit(
        pub_in,
        Default::default(),
        &proofs.to_vec(),
        pp,
        Some(k),
    )?;
    synthesize(c)
}

pub(crate) fn porep_check(s: &Porep) -> Result<()> {
    let ok = StackedDrg::<Tree, G>::verify_all_partitions(&s.pp, &s.pub_in, &s.proofs)
        .map_err(|e| anyhow!("vanilla proofs do not verify: {}", e))?;
    ensure!(ok, "the vanilla proofs do not verify against the C1 output's replica_id, comm_d, comm_r and seed (another sector's?)");
    Ok(())
}

// ---------------------------------------------------------------- PoSt

struct PostSetup {
    pub_in: fallback::PublicInputs<TreeDomain>,
    pp: fallback::PublicParams,
    partitioned: Vec<filecoin_proofs::VanillaProof<Tree>>,
}

pub fn window_partitions(n: usize, sector_count: usize) -> Option<usize> {
    let p = n.div_ceil(sector_count);
    if p > 1 { Some(p) } else { None }
}

/// A PoSt input decoded: its vanilla proofs, each checked to be of the
/// sector in its place, the public inputs (all its sectors, k None) and the
/// vanilla parameters.
pub(crate) struct PostBase {
    pub cfg: filecoin_proofs::PoStConfig,
    pub vanilla: Vec<FallbackPoStSectorProof<Tree>>,
    pub pub_in: fallback::PublicInputs<TreeDomain>,
    pub pp: fallback::PublicParams,
    pub partitions: Option<usize>,
}

pub(crate) fn post_base(p: &Post) -> Result<PostBase> {
    check_size(u64::from(p.registered_proof.sector_size()))?;
    let cfg = p.registered_proof.as_v1_config();
    let mut vanilla: Vec<FallbackPoStSectorProof<Tree>> = Vec::new();
    for (i, b) in p.vanilla_proofs.iter().enumerate() {
        vanilla.push(bincode::deserialize(b).map_err(|e| anyhow!("vanilla_proofs[{}]: not a FallbackPoStSectorProof ({})", i, e))?);
    }
    ensure!(
        vanilla.len() == p.sectors.len(),
        "{} vanilla proofs for {} sectors",
        vanilla.len(),
        p.sectors.len()
    );
    for (i, (v, (id, comm_r))) in vanilla.iter().zip(p.sectors.iter()).enumerate() {
        let c: TreeDomain = as_safe_commitment(comm_r, "comm_r")?;
        ensure!(
            u64::from(v.sector_id) == *id && v.comm_r == c,
            "vanilla_proofs[{}] is a proof of sector {} (comm_r {}), not of sectors[{}] = sector {}",
            i,
            u64::from(v.sector_id),
            crate::inputs::to_hex(AsRef::<[u8]>::as_ref(&v.comm_r)),
            i,
            id
        );
    }
    let randomness: TreeDomain = as_safe_commitment(&p.randomness, "randomness")?;
    let prover_id: TreeDomain = as_safe_commitment(&p.prover_id, "prover_id")?;
    let (vanilla_params, partitions) = match cfg.typ {
        PoStType::Winning => {
            ensure!(vanilla.len() == cfg.sector_count, "invalid amount of vanilla proofs");
            (winning_post_setup_params(&cfg)?, None)
        }
        PoStType::Window => (window_post_setup_params(&cfg), window_partitions(vanilla.len(), cfg.sector_count)),
    };
    let setup = compound_proof::SetupParams { vanilla_params, partitions, priority: cfg.priority };
    let cpp = <FallbackPoStCompound<Tree> as CompoundProof<FallbackPoSt<'_, Tree>, FallbackPoStCircuit<Tree>>>::setup(&setup)?;
    let pub_in = fallback::PublicInputs {
        randomness,
        prover_id,
        sectors: vanilla.iter().map(|v| PublicSector { id: v.sector_id, comm_r: v.comm_r }).collect(),
        k: None,
    };
    Ok(PostBase { cfg, vanilla, pub_in, pp: cpp.vanilla_params, partitions: cpp.partitions })
}

fn post_setup(p: &Post) -> Result<PostSetup> {
    let b = post_base(p)?;
    let n = b.partitions.unwrap_or(1);
    let partitioned = partition_vanilla_proofs(&b.cfg, &b.pp, &b.pub_in, n, &b.vanilla)
        .map_err(|e| anyhow!("vanilla proofs: {}", e))?;
    ensure!(partitioned.len() == n, "{} partitions of vanilla proofs, expected {}", partitioned.len(), n);
    Ok(PostSetup { pub_in: b.pub_in, pp: b.pp, partitioned })
}

/// One partition's PoSt circuit from a part: `b` holds that partition's
/// sectors only (at most sector_count), `k` is its index in the whole
/// proof.  The vanilla proofs are arranged and checked as upstream's
/// partition_vanilla_proofs does for partition k, and the circuit is built
/// on the part's sectors as its chunk 0 (FallbackPoStCompound::circuit
/// takes partition k's chunk of the public sectors and nothing else of k).
pub(crate) fn post_part_synth(b: &PostBase, k: usize) -> Result<Assignment> {
    ensure!(
        b.pub_in.sectors.len() <= b.pp.sector_count,
        "{} sectors in one partition, at most {}",
        b.pub_in.sectors.len(),
        b.pp.sector_count
    );
    let pk = fallback::PublicInputs { k: Some(k), ..b.pub_in.clone() };
    let proof = filecoin_proofs::single_partition_vanilla_proofs(&b.cfg, &b.pp, &pk, &b.vanilla)
        .map_err(|e| anyhow!("vanilla proofs: {}", e))?;
    let ok = FallbackPoSt::<Tree>::verify(&b.pp, &pk, &proof).map_err(|e| anyhow!("vanilla proofs of partition {} do not verify: {}", k, e))?;
    ensure!(ok, "the vanilla proofs of partition {} do not verify against its sectors, randomness and prover_id", k);
    let c = <FallbackPoStCompound<Tree> as CompoundProof<FallbackPoSt<'_, Tree>, FallbackPoStCircuit<Tree>>>::circuit(
        &b.pub_in,
        Default::default(),
        &proof,
        &b.pp,
        Some(0),
    )?;
    synthesize(c)
}

// ---------------------------------------------------------------- SnapDeals

struct SnapSetup {
    pub_in: UpdatePublicInputs,
    pp: storage_proofs_update::PublicParams,
    proofs: Vec<PartitionProof<Tree>>,
}

/// The update circuit's parameter file.  (filecoin-proofs-api's
/// RegisteredUpdateProof::cache_params_path names the PoRep circuit's file:
/// it goes through the PoRep config; filecoin-proofs loads the update's
/// parameters by EmptySectorUpdateCompound's own identifier, as here.)
pub fn snap_params_path(s: &Snap) -> Result<PathBuf> {
    let pp = storage_proofs_update::PublicParams::from_sector_size(u64::from(s.registered_proof.sector_size()));
    let id = <EmptySectorUpdateCompound<Tree> as CacheableParameters<EmptySectorUpdateCircuit<Tree>, _>>::cache_identifier(&pp);
    Ok(parameter_cache_params_path(&id))
}

/// A SnapDeals input's public side: its partition count, the public
/// inputs (k = the partition count, as upstream's prover sets it) and the
/// vanilla parameters.
pub(crate) fn snap_public(s: &Snap) -> Result<(usize, UpdatePublicInputs, storage_proofs_update::PublicParams)> {
    check_size(u64::from(s.registered_proof.sector_size()))?;
    let porep_cfg = s.registered_proof.as_v1_config();
    let config = SectorUpdateConfig::from_porep_config(&porep_cfg);
    let partitions = usize::from(config.update_partitions);
    let pub_in = UpdatePublicInputs {
        k: partitions,
        comm_r_old: <TreeRHasher as Hasher>::Domain::try_from_bytes(&s.comm_r_old).context("comm_r_old")?,
        comm_d_new: DefaultPieceDomain::try_from_bytes(&s.comm_d_new).context("comm_d_new")?,
        comm_r_new: <TreeRHasher as Hasher>::Domain::try_from_bytes(&s.comm_r_new).context("comm_r_new")?,
        h: config.h,
    };
    let setup = compound_proof::SetupParams {
        vanilla_params: UpdateSetupParams { sector_bytes: u64::from(config.sector_size) },
        partitions: Some(partitions),
        priority: false,
    };
    let cpp = EmptySectorUpdateCompound::<Tree>::setup(&setup)?;
    Ok((partitions, pub_in, cpp.vanilla_params))
}

pub(crate) fn snap_decode(i: usize, b: &[u8]) -> Result<PartitionProof<Tree>> {
    bincode::deserialize(b).map_err(|e| anyhow!("vanilla_proofs[{}]: not a PartitionProof ({})", i, e))
}

fn snap_setup(s: &Snap) -> Result<SnapSetup> {
    let (partitions, pub_in, pp) = snap_public(s)?;
    let mut proofs: Vec<PartitionProof<Tree>> = Vec::new();
    for (i, b) in s.vanilla_proofs.iter().enumerate() {
        proofs.push(snap_decode(i, b)?);
    }
    ensure!(proofs.len() == partitions, "{} vanilla partition proofs, {:?} has {} partitions", proofs.len(), s.registered_proof, partitions);
    let config = SectorUpdateConfig::from_porep_config(&s.registered_proof.as_v1_config());
    let ok = filecoin_proofs::verify_partition_proofs::<Tree>(config, &proofs, s.comm_r_old, s.comm_r_new, s.comm_d_new)
        .map_err(|e| anyhow!("vanilla proofs do not verify: {}", e))?;
    ensure!(ok, "the vanilla partition proofs do not verify against comm_r_old, comm_r_new and comm_d_new (another sector's?)");
    Ok(SnapSetup { pub_in, pp, proofs })
}

/// Partition k's update circuit synthesized.
pub(crate) fn snap_synth(
    pub_in: &UpdatePublicInputs,
    pp: &storage_proofs_update::PublicParams,
    proof: &PartitionProof<Tree>,
    k: usize,
) -> Result<Assignment> {
    let c = <EmptySectorUpdateCompound<Tree> as CompoundProof<EmptySectorUpdate<Tree>, EmptySectorUpdateCircuit<Tree>>>::circuit(
        pub_in,
        Default::default(),
        proof,
        pp,
        Some(k),
    )?;
    synthesize(c)
}

/// Partition k's vanilla proof checked alone (upstream's verifier of one
/// partition: the public inputs with k set to it).
pub(crate) fn snap_check_partition(
    pub_in: &UpdatePublicInputs,
    pp: &storage_proofs_update::PublicParams,
    proof: &PartitionProof<Tree>,
    k: usize,
) -> Result<()> {
    let pk = UpdatePublicInputs { k, ..*pub_in };
    let ok = EmptySectorUpdate::<Tree>::verify(pp, &pk, proof).map_err(|e| anyhow!("vanilla proof of partition {} does not verify: {}", k, e))?;
    ensure!(ok, "the vanilla proof of partition {} does not verify against comm_r_old, comm_r_new and comm_d_new (another sector's?)", k);
    Ok(())
}

// ---------------------------------------------------------------- entry points

pub enum Input {
    Porep(C1),
    Post(Post),
    Snap(Snap),
}

pub fn plan(input: &Input) -> Result<Plan> {
    Ok(match input {
        Input::Porep(c1) => {
            let s = porep_setup(c1)?;
            Plan { partitions: s.proofs.len(), params: c1.phase1.registered_proof.cache_params_path()? }
        }
        Input::Post(p) => {
            let s = post_setup(p)?;
            Plan { partitions: s.partitioned.len(), params: p.registered_proof.cache_params_path()? }
        }
        Input::Snap(sn) => {
            let s = snap_setup(sn)?;
            Plan { partitions: s.proofs.len(), params: snap_params_path(sn)? }
        }
    })
}

fn check_k(k: usize, n: usize) -> Result<()> {
    if k >= n {
        bail!("--partition {}: the input has {} partition{}", k, n, if n == 1 { "" } else { "s" });
    }
    Ok(())
}

/// Partition k's proving assignment, and the number of partitions.
pub fn synth(input: &Input, k: usize) -> Result<(Assignment, usize)> {
    match input {
        Input::Porep(c1) => {
            let s = porep_setup(c1)?;
            check_k(k, s.proofs.len())?;
            porep_check(&s)?;
            Ok((porep_synth(&s.pub_in, &s.pp, &s.proofs[k], k)?, s.proofs.len()))
        }
        Input::Post(p) => {
            let s = post_setup(p)?;
            check_k(k, s.partitioned.len())?;
            let c = <FallbackPoStCompound<Tree> as CompoundProof<FallbackPoSt<'_, Tree>, FallbackPoStCircuit<Tree>>>::circuit(
                &s.pub_in,
                Default::default(),
                &s.partitioned[k],
                &s.pp,
                Some(k),
            )?;
            Ok((synthesize(c)?, s.partitioned.len()))
        }
        Input::Snap(sn) => {
            let s = snap_setup(sn)?;
            check_k(k, s.proofs.len())?;
            Ok((snap_synth(&s.pub_in, &s.pp, &s.proofs[k], k)?, s.proofs.len()))
        }
    }
}

pub fn kind_of(input: &Input) -> Kind {
    match input {
        Input::Porep(_) => Kind::Porep,
        Input::Post(p) => {
            if p.registered_proof.typ() == PoStType::Winning { Kind::Winning } else { Kind::Window }
        }
        Input::Snap(_) => Kind::Snap,
    }
}
