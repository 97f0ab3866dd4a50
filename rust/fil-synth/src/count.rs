//! `count`: the size of one partition's circuit of a kind at any sector
//! size filecoin-proofs registers (2 KiB to 64 GiB), counted on the blank
//! circuit the way `params` counts it (inputs with ONE, aux, constraints;
//! no linear combination is built, so 32 GiB counts in seconds), with the
//! partitions of a proof.  These are the figures `zkslot plan --filecoin`
//! uses; nothing is synthesized or generated.
//!
//! Registered proofs as in keys.rs: PoRep StackedDrg<size>V1_1, WinningPoSt
//! StackedDrgWinning<size>V1, WindowPoSt StackedDrgWindow<size>V1_2 (one
//! full partition: sector_count sectors), SnapDeals StackedDrg<size>V1.

use anyhow::Result;
use filecoin_proofs::{
    parameters::{public_params, window_post_public_params, winning_post_public_params},
    DefaultPieceHasher, SectorShape2KiB, SectorShape32GiB, SectorShape512MiB, SectorShape64GiB, SectorShape8MiB,
    SectorUpdateConfig, TreeRHasher,
};
use filecoin_proofs_api::{RegisteredPoStProof, RegisteredSealProof, RegisteredUpdateProof};
use storage_proofs_core::{compound_proof::CompoundProof, merkle::MerkleTreeTrait};
use storage_proofs_porep::stacked::{StackedCircuit, StackedCompound, StackedDrg};
use storage_proofs_post::fallback::{FallbackPoSt, FallbackPoStCircuit, FallbackPoStCompound};
use storage_proofs_update::{EmptySectorUpdate, EmptySectorUpdateCircuit, EmptySectorUpdateCompound};

use crate::inputs::Kind;
use crate::keys::size_label;
use crate::params::{count, Count};

type G = DefaultPieceHasher;

fn registered<T: serde::de::DeserializeOwned>(name: String) -> Result<T> {
    serde_json::from_str(&format!("\"{}\"", name)).map_err(|e| anyhow::anyhow!("{}: {}", name, e))
}

/// One partition's counts and the partitions of a proof ("per sector_count
/// sectors" for WindowPoSt: the count given is its sectors per partition).
fn count_kind<Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>>(kind: Kind, size: u64) -> Result<(Count, usize)> {
    let l = size_label(size)?;
    Ok(match kind {
        Kind::Porep => {
            let cfg = registered::<RegisteredSealProof>(format!("StackedDrg{}V1_1", l))?.as_v1_config();
            let pp = public_params::<Tree>(&cfg)?;
            let blank = <StackedCompound<Tree, G> as CompoundProof<StackedDrg<'_, Tree, G>, StackedCircuit<Tree, G>>>::blank_circuit(&pp);
            (count(blank)?, usize::from(cfg.partitions))
        }
        Kind::Winning => {
            let cfg = registered::<RegisteredPoStProof>(format!("StackedDrgWinning{}V1", l))?.as_v1_config();
            let pp = winning_post_public_params::<Tree>(&cfg)?;
            let blank = <FallbackPoStCompound<Tree> as CompoundProof<FallbackPoSt<'_, Tree>, FallbackPoStCircuit<Tree>>>::blank_circuit(&pp);
            (count(blank)?, 1)
        }
        Kind::Window => {
            let cfg = registered::<RegisteredPoStProof>(format!("StackedDrgWindow{}V1_2", l))?.as_v1_config();
            let pp = window_post_public_params::<Tree>(&cfg)?;
            let blank = <FallbackPoStCompound<Tree> as CompoundProof<FallbackPoSt<'_, Tree>, FallbackPoStCircuit<Tree>>>::blank_circuit(&pp);
            (count(blank)?, cfg.sector_count)
        }
        Kind::Snap => {
            let rp = registered::<RegisteredUpdateProof>(format!("StackedDrg{}V1", l))?;
            let config = SectorUpdateConfig::from_porep_config(&rp.as_v1_config());
            let pp = storage_proofs_update::PublicParams::from_sector_size(size);
            let blank = <EmptySectorUpdateCompound<Tree> as CompoundProof<EmptySectorUpdate<Tree>, EmptySectorUpdateCircuit<Tree>>>::blank_circuit(&pp);
            (count(blank)?, usize::from(config.update_partitions))
        }
    })
}

/// Prints one line: KIND SIZE constraints inputs aux rows domain_log2
/// partitions (tab-separated; WindowPoSt's last column is its sectors per
/// partition, its partitions depending on the sectors proved).
pub fn print(kind: Kind, size: u64) -> Result<()> {
    let (cs, n) = match size_label(size)? {
        "2KiB" => count_kind::<SectorShape2KiB>(kind, size)?,
        "8MiB" => count_kind::<SectorShape8MiB>(kind, size)?,
        "512MiB" => count_kind::<SectorShape512MiB>(kind, size)?,
        "32GiB" => count_kind::<SectorShape32GiB>(kind, size)?,
        _ => count_kind::<SectorShape64GiB>(kind, size)?,
    };
    let rows = cs.constraints + cs.inputs;
    println!(
        "{}\t{}\tconstraints {}\tinputs {}\taux {}\trows {}\tdomain 2^{}\t{} {}",
        format!("{:?}", kind).to_lowercase(),
        size,
        cs.constraints,
        cs.inputs,
        cs.aux,
        rows,
        rows.next_power_of_two().trailing_zeros(),
        if kind == Kind::Window { "sectors/partition" } else { "partitions" },
        n
    );
    Ok(())
}
