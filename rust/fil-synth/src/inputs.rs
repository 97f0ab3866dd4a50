//! The input files of zkslot-fil-synth (docs/filecoin.md says the same).
//!
//! PoRep (`--kind porep`): the C1 file as lotus-bench writes it and cuzk
//! reads it:
//!
//!   {"SectorNum": 1, "Phase1Out": "<base64>", "SectorSize": 2048}
//!
//! Phase1Out is base64 (standard alphabet, padded: Go's encoding of a
//! []byte) of the JSON of filecoin-proofs-api's SealCommitPhase1Output
//! (registered_proof, vanilla_proofs, comm_r, comm_d, replica_id, seed,
//! ticket), exactly what seal_commit_phase1 returns.  The C1 output holds no
//! prover id, which verify_seal needs: an optional "ProverId" (64 hex
//! digits) may be added; without it the prover id is that of actor 1000
//! (f01000, lotus-bench's default miner): the id address payload, uvarint
//! 1000 = e8 07, zero-padded to 32 bytes.
//!
//! WinningPoSt and WindowPoSt (`--kind winning|window`): one JSON object
//! that mirrors the arguments of filecoin-proofs-api's
//! generate_{winning,window}_post_with_vanilla and verify_{winning,window}_post:
//!
//!   {"registered_proof": "StackedDrgWindow2KiBV1_2",   (serde name)
//!    "randomness": "<64 hex>",                       (ChallengeSeed)
//!    "prover_id": "<64 hex>",                        (ProverId)
//!    "sectors": [{"sector_id": 1, "comm_r": "<64 hex>"}, ...],
//!                      (the public replicas the verifier takes, in order)
//!    "vanilla_proofs": ["<base64>", ...]}
//!                      (VanillaProofBytes: bincode of FallbackPoStSectorProof,
//!                       as generate_single_vanilla_proof returns them)
//!
//! SnapDeals (`--kind snap`): mirrors generate_empty_sector_update_proof_with_vanilla
//! and verify_empty_sector_update_proof:
//!
//!   {"registered_proof": "StackedDrg2KiBV1",         (RegisteredUpdateProof)
//!    "comm_r_old": "<64 hex>", "comm_r_new": "<64 hex>", "comm_d_new": "<64 hex>",
//!    "vanilla_proofs": ["<base64>", ...]}
//!                      (PartitionProofBytes: bincode of PartitionProof, one
//!                       per partition, as generate_partition_proofs returns)
//!
//! Hex is lowercase or uppercase, 32 bytes, in the byte order of the
//! upstream [u8; 32] values.

use anyhow::{anyhow, bail, Context, Result};
use base64::Engine;
use filecoin_proofs_api::{seal::SealCommitPhase1Output, RegisteredPoStProof, RegisteredUpdateProof};
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Porep,
    Winning,
    Window,
    Snap,
}

impl Kind {
    pub fn parse(s: &str) -> Result<Kind> {
        Ok(match s {
            "porep" => Kind::Porep,
            "winning" => Kind::Winning,
            "window" => Kind::Window,
            "snap" => Kind::Snap,
            _ => bail!("--kind {}: not one of porep, winning, window, snap", s),
        })
    }
}

pub const B64: base64::engine::GeneralPurpose = base64::engine::general_purpose::STANDARD;

pub fn hex32(s: &str, what: &str) -> Result<[u8; 32]> {
    let s = s.trim();
    if s.len() != 64 {
        bail!("{}: {} hex digits, expected 64", what, s.len());
    }
    let mut out = [0u8; 32];
    for (i, o) in out.iter_mut().enumerate() {
        *o = u8::from_str_radix(&s[2 * i..2 * i + 2], 16)
            .map_err(|_| anyhow!("{}: not hexadecimal", what))?;
    }
    Ok(out)
}

pub fn to_hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{:02x}", x)).collect()
}

/// Actor 1000's prover id (lotus-bench's default miner f01000).
pub fn prover_id_of_actor(mut id: u64) -> [u8; 32] {
    let mut out = [0u8; 32];
    let mut i = 0;
    loop {
        let b = (id & 0x7f) as u8;
        id >>= 7;
        if id == 0 {
            out[i] = b;
            break;
        }
        out[i] = b | 0x80;
        i += 1;
    }
    out
}

#[derive(Serialize, Deserialize)]
pub struct C1File {
    #[serde(rename = "SectorNum")]
    pub sector_num: u64,
    #[serde(rename = "Phase1Out")]
    pub phase1_out: String,
    #[serde(rename = "SectorSize")]
    pub sector_size: u64,
    #[serde(rename = "ProverId", default, skip_serializing_if = "Option::is_none")]
    pub prover_id: Option<String>,
}

pub struct C1 {
    pub sector_num: u64,
    pub prover_id: [u8; 32],
    pub phase1: SealCommitPhase1Output,
}

pub fn read_c1(bytes: &[u8]) -> Result<C1> {
    let f: C1File = serde_json::from_slice(bytes).context("not a C1 file (JSON {SectorNum, Phase1Out, SectorSize})")?;
    let raw = B64.decode(f.phase1_out.trim()).context("Phase1Out is not base64")?;
    let phase1: SealCommitPhase1Output =
        serde_json::from_slice(&raw).context("Phase1Out is not the JSON of a SealCommitPhase1Output")?;
    let size = u64::from(phase1.registered_proof.sector_size());
    if size != f.sector_size {
        bail!("SectorSize {} but Phase1Out's registered proof {:?} is for {} bytes", f.sector_size, phase1.registered_proof, size);
    }
    let prover_id = match &f.prover_id {
        Some(h) => hex32(h, "ProverId")?,
        None => prover_id_of_actor(1000),
    };
    Ok(C1 { sector_num: f.sector_num, prover_id, phase1 })
}

#[derive(Serialize, Deserialize, Clone)]
pub struct PubSector {
    pub sector_id: u64,
    pub comm_r: String,
}

#[derive(Serialize, Deserialize)]
pub struct PostFile {
    pub registered_proof: RegisteredPoStProof,
    pub randomness: String,
    pub prover_id: String,
    pub sectors: Vec<PubSector>,
    pub vanilla_proofs: Vec<String>,
}

pub struct Post {
    pub registered_proof: RegisteredPoStProof,
    pub randomness: [u8; 32],
    pub prover_id: [u8; 32],
    pub sectors: Vec<(u64, [u8; 32])>,
    pub vanilla_proofs: Vec<Vec<u8>>,
}

pub fn read_post(bytes: &[u8], kind: Kind) -> Result<Post> {
    let f: PostFile = serde_json::from_slice(bytes)
        .context("not a PoSt input (JSON {registered_proof, randomness, prover_id, sectors, vanilla_proofs})")?;
    post_of(f, kind)
}

/// A PoSt input (or a part's) decoded and checked for its kind.
pub fn post_of(f: PostFile, kind: Kind) -> Result<Post> {
    let want = if kind == Kind::Winning { filecoin_proofs::PoStType::Winning } else { filecoin_proofs::PoStType::Window };
    if f.registered_proof.typ() != want {
        bail!("registered_proof {:?} is not a {:?} PoSt", f.registered_proof, want);
    }
    let mut sectors = Vec::new();
    for (i, s) in f.sectors.iter().enumerate() {
        sectors.push((s.sector_id, hex32(&s.comm_r, &format!("sectors[{}].comm_r", i))?));
    }
    let mut vanilla_proofs = Vec::new();
    for (i, v) in f.vanilla_proofs.iter().enumerate() {
        vanilla_proofs.push(B64.decode(v.trim()).with_context(|| format!("vanilla_proofs[{}] is not base64", i))?);
    }
    if vanilla_proofs.is_empty() {
        bail!("no vanilla_proofs");
    }
    if sectors.is_empty() {
        bail!("no sectors");
    }
    Ok(Post {
        registered_proof: f.registered_proof,
        randomness: hex32(&f.randomness, "randomness")?,
        prover_id: hex32(&f.prover_id, "prover_id")?,
        sectors,
        vanilla_proofs,
    })
}

#[derive(Serialize, Deserialize)]
pub struct SnapFile {
    pub registered_proof: RegisteredUpdateProof,
    pub comm_r_old: String,
    pub comm_r_new: String,
    pub comm_d_new: String,
    pub vanilla_proofs: Vec<String>,
}

pub struct Snap {
    pub registered_proof: RegisteredUpdateProof,
    pub comm_r_old: [u8; 32],
    pub comm_r_new: [u8; 32],
    pub comm_d_new: [u8; 32],
    pub vanilla_proofs: Vec<Vec<u8>>,
}

pub fn read_snap(bytes: &[u8]) -> Result<Snap> {
    let f: SnapFile = serde_json::from_slice(bytes)
        .context("not a SnapDeals input (JSON {registered_proof, comm_r_old, comm_r_new, comm_d_new, vanilla_proofs})")?;
    let mut vanilla_proofs = Vec::new();
    for (i, v) in f.vanilla_proofs.iter().enumerate() {
        vanilla_proofs.push(B64.decode(v.trim()).with_context(|| format!("vanilla_proofs[{}] is not base64", i))?);
    }
    if vanilla_proofs.is_empty() {
        bail!("no vanilla_proofs");
    }
    Ok(Snap {
        registered_proof: f.registered_proof,
        comm_r_old: hex32(&f.comm_r_old, "comm_r_old")?,
        comm_r_new: hex32(&f.comm_r_new, "comm_r_new")?,
        comm_d_new: hex32(&f.comm_d_new, "comm_d_new")?,
        vanilla_proofs,
    })
}
