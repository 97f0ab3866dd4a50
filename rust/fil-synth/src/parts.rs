//! Part files: one proof's input split into one self-contained input per
//! partition, each holding only what that partition's circuit needs, so
//! that each partition can be synthesized alone (by synthd's generator,
//! `zkslot-fil-synth synth --input {input} --out {output}`).
//!
//! `split` validates the whole input first, exactly as the proof would
//! (the upstream vanilla verifiers over every partition), and writes
//! nothing when it is bad.  Each part is a JSON object:
//!
//!   {"kind": "porep", "partition": K, "partitions": N,
//!    "registered_proof": "StackedDrg2KiBV1_1",     (RegisteredSealProof)
//!    "comm_r": hex, "comm_d": hex, "replica_id": hex, "seed": hex,
//!    "vanilla_proofs": "<base64>"}   (bincode of partition K's
//!                                     Vec<VanillaSealProof>)
//!   {"kind": "winning"|"window", "partition": K, "partitions": N,
//!    "registered_proof": ..., "randomness": hex, "prover_id": hex,
//!    "sectors": [partition K's public sectors],
//!    "vanilla_proofs": [their VanillaProofBytes, base64]}
//!   {"kind": "snap", "partition": K, "partitions": N,
//!    "registered_proof": ..., "comm_r_old": hex, "comm_r_new": hex,
//!    "comm_d_new": hex, "vanilla_proof": "<base64>"}  (partition K's
//!                                                      PartitionProofBytes)
//!
//! Synthesis of a part checks its partition's vanilla proofs again (a part
//! file is an input like any other) and builds the same circuit as the
//! whole input's partition K: the `.bpa` is the same bytes.  No parameter
//! file is read: synthesis only builds the circuit.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, ensure, Context, Result};
use base64::Engine;
use filecoin_hashers::Domain;
use filecoin_proofs_api::{RegisteredPoStProof, RegisteredSealProof, RegisteredUpdateProof};
use serde::{Deserialize, Serialize};
use zkslot_bp_oracle::assign::Assignment;

use crate::inputs::{self, hex32, to_hex, Kind, Post, PubSector, Snap, B64};
use crate::synth::{self, Input, Tree};

#[derive(Serialize, Deserialize)]
pub struct PorepPart {
    pub partition: usize,
    pub partitions: usize,
    pub registered_proof: RegisteredSealProof,
    pub comm_r: String,
    pub comm_d: String,
    pub replica_id: String,
    pub seed: String,
    pub vanilla_proofs: String,
}

#[derive(Serialize, Deserialize)]
pub struct PostPart {
    pub partition: usize,
    pub partitions: usize,
    pub registered_proof: RegisteredPoStProof,
    pub randomness: String,
    pub prover_id: String,
    pub sectors: Vec<PubSector>,
    pub vanilla_proofs: Vec<String>,
}

#[derive(Serialize, Deserialize)]
pub struct SnapPart {
    pub partition: usize,
    pub partitions: usize,
    pub registered_proof: RegisteredUpdateProof,
    pub comm_r_old: String,
    pub comm_r_new: String,
    pub comm_d_new: String,
    pub vanilla_proof: String,
}

#[derive(Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Part {
    Porep(PorepPart),
    Winning(PostPart),
    Window(PostPart),
    Snap(SnapPart),
}

impl Part {
    pub fn kind(&self) -> Kind {
        match self {
            Part::Porep(_) => Kind::Porep,
            Part::Winning(_) => Kind::Winning,
            Part::Window(_) => Kind::Window,
            Part::Snap(_) => Kind::Snap,
        }
    }
    pub fn index(&self) -> (usize, usize) {
        match self {
            Part::Porep(p) => (p.partition, p.partitions),
            Part::Winning(p) | Part::Window(p) => (p.partition, p.partitions),
            Part::Snap(p) => (p.partition, p.partitions),
        }
    }
}

/// The parts of a whole input, validated as a proof of it would be.
pub fn split(input: &Input) -> Result<Vec<Part>> {
    match input {
        Input::Porep(c1) => {
            let s = synth::porep_setup(c1)?;
            synth::porep_check(&s)?;
            let p = &c1.phase1;
            let n = s.proofs.len();
            let mut parts = Vec::with_capacity(n);
            for (k, proofs) in s.proofs.iter().enumerate() {
                let raw = bincode::serialize(proofs).map_err(|e| anyhow!("partition {}: {}", k, e))?;
                parts.push(Part::Porep(PorepPart {
                    partition: k,
                    partitions: n,
                    registered_proof: p.registered_proof,
                    comm_r: to_hex(&p.comm_r),
                    comm_d: to_hex(&p.comm_d),
                    replica_id: to_hex(AsRef::<[u8]>::as_ref(&p.replica_id)),
                    seed: to_hex(&p.seed),
                    vanilla_proofs: B64.encode(raw),
                }));
            }
            Ok(parts)
        }
        Input::Post(p) => {
            // the whole input checked as the prover does (every partition)
            let n = synth::plan(input)?.partitions;
            let per = p.registered_proof.as_v1_config().sector_count;
            let winning = synth::kind_of(input) == Kind::Winning;
            let mut parts = Vec::with_capacity(n);
            for k in 0..n {
                // WinningPoSt: one partition of the (single) sector
                let range = if winning { 0..p.sectors.len() } else { k * per..((k + 1) * per).min(p.sectors.len()) };
                let part = PostPart {
                    partition: k,
                    partitions: n,
                    registered_proof: p.registered_proof,
                    randomness: to_hex(&p.randomness),
                    prover_id: to_hex(&p.prover_id),
                    sectors: p.sectors[range.clone()]
                        .iter()
                        .map(|(id, c)| PubSector { sector_id: *id, comm_r: to_hex(c) })
                        .collect(),
                    vanilla_proofs: p.vanilla_proofs[range].iter().map(|v| B64.encode(v)).collect(),
                };
                parts.push(if winning { Part::Winning(part) } else { Part::Window(part) });
            }
            Ok(parts)
        }
        Input::Snap(sn) => {
            let n = synth::plan(input)?.partitions;
            Ok((0..n)
                .map(|k| {
                    Part::Snap(SnapPart {
                        partition: k,
                        partitions: n,
                        registered_proof: sn.registered_proof,
                        comm_r_old: to_hex(&sn.comm_r_old),
                        comm_r_new: to_hex(&sn.comm_r_new),
                        comm_d_new: to_hex(&sn.comm_d_new),
                        vanilla_proof: B64.encode(&sn.vanilla_proofs[k]),
                    })
                })
                .collect())
        }
    }
}

/// Writes the parts as DIR/part-K.json, all or none: on an error the files
/// written so far are removed.  Returns their paths in order.
pub fn write(parts: &[Part], dir: &Path) -> Result<Vec<PathBuf>> {
    fs::create_dir_all(dir).with_context(|| format!("--out-dir {}", dir.display()))?;
    let mut done: Vec<PathBuf> = Vec::new();
    for (k, part) in parts.iter().enumerate() {
        let path = dir.join(format!("part-{}.json", k));
        let r = serde_json::to_vec(part)
            .map_err(anyhow::Error::from)
            .and_then(|b| fs::write(&path, b).map_err(anyhow::Error::from));
        if let Err(e) = r {
            let _ = fs::remove_file(&path);
            for p in &done {
                let _ = fs::remove_file(p);
            }
            return Err(e).with_context(|| path.display().to_string());
        }
        done.push(path);
    }
    Ok(done)
}

pub fn read(bytes: &[u8]) -> Result<Part> {
    let part: Part = serde_json::from_slice(bytes)
        .context("not a part file (JSON {kind, partition, partitions, ...} as `split` writes it)")?;
    let (k, n) = part.index();
    ensure!(k < n, "partition {} of {}", k, n);
    Ok(part)
}

/// A part's assignment (the same as the whole input's partition K).
pub fn synth(part: &Part) -> Result<Assignment> {
    let (k, n) = part.index();
    match part {
        Part::Porep(p) => {
            let cfg = p.registered_proof.as_v1_config();
            ensure!(n == usize::from(cfg.partitions), "partitions {}, {:?} has {}", n, p.registered_proof, usize::from(cfg.partitions));
            let raw = B64.decode(p.vanilla_proofs.trim()).context("vanilla_proofs is not base64")?;
            let proofs: Vec<filecoin_proofs::VanillaSealProof<Tree>> =
                bincode::deserialize(&raw).map_err(|e| anyhow!("vanilla_proofs: not a partition's vanilla seal proofs ({})", e))?;
            ensure!(!proofs.is_empty(), "no vanilla proofs");
            let rid = hex32(&p.replica_id, "replica_id")?;
            let rid = <filecoin_proofs::DefaultTreeDomain as Domain>::try_from_bytes(&rid).context("replica_id")?;
            let (pub_in, pp) = synth::porep_public(
                p.registered_proof,
                &hex32(&p.comm_r, "comm_r")?,
                &hex32(&p.comm_d, "comm_d")?,
                rid.into(),
                &hex32(&p.seed, "seed")?,
            )?;
            synth::porep_check_partition(&pub_in, &pp, &proofs, k)?;
            synth::porep_synth(&pub_in, &pp, &proofs, k)
        }
        Part::Winning(p) | Part::Window(p) => {
            let file = inputs::PostFile {
                registered_proof: p.registered_proof,
                randomness: p.randomness.clone(),
                prover_id: p.prover_id.clone(),
                sectors: p.sectors.clone(),
                vanilla_proofs: p.vanilla_proofs.clone(),
            };
            let post: Post = inputs::post_of(file, part.kind())?;
            let b = synth::post_base(&post)?;
            let want = if part.kind() == Kind::Winning { 1 } else { n };
            ensure!(n == want && k < n, "partition {} of {}", k, n);
            synth::post_part_synth(&b, k)
        }
        Part::Snap(p) => {
            let snap = Snap {
                registered_proof: p.registered_proof,
                comm_r_old: hex32(&p.comm_r_old, "comm_r_old")?,
                comm_r_new: hex32(&p.comm_r_new, "comm_r_new")?,
                comm_d_new: hex32(&p.comm_d_new, "comm_d_new")?,
                vanilla_proofs: Vec::new(),
            };
            let (partitions, pub_in, pp) = synth::snap_public(&snap)?;
            ensure!(n == partitions, "partitions {}, {:?} has {}", n, p.registered_proof, partitions);
            let raw = B64.decode(p.vanilla_proof.trim()).context("vanilla_proof is not base64")?;
            let proof = synth::snap_decode(k, &raw)?;
            synth::snap_check_partition(&pub_in, &pp, &proof, k)?;
            synth::snap_synth(&pub_in, &pp, &proof, k)
        }
    }
}
