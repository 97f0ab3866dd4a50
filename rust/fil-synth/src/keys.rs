//! `keys`: the Filecoin circuits whose parameters are in a directory, one
//! line each, `KIND<TAB>SECTOR_SIZE<TAB>PARAMS_PATH<TAB>VK_PATH`, for a
//! caller that registers them as keys by proof type (`zkslot key add
//! --filecoin DIR`).  The file names are filecoin-proofs' own
//! (`v28-<circuit identifier>.params` / `.vk`, computed by the upstream
//! code for the registered proof of each kind at that sector size); a
//! circuit whose files are missing is said on stderr, one line each.
//!
//! The registered proofs: PoRep StackedDrg<size>V1_1 (the seal proof of
//! today's sectors; its synthetic and non-interactive features use the same
//! circuit), WinningPoSt StackedDrgWinning<size>V1, WindowPoSt
//! StackedDrgWindow<size>V1_2, SnapDeals the empty sector update circuit of
//! StackedDrg<size>V1.

use std::path::PathBuf;

use anyhow::{anyhow, bail, Result};
use filecoin_proofs::{SectorShape2KiB, SectorShape32GiB, SectorShape512MiB, SectorShape64GiB, SectorShape8MiB, TreeRHasher};
use filecoin_proofs_api::{RegisteredPoStProof, RegisteredSealProof};
use storage_proofs_core::{
    merkle::MerkleTreeTrait,
    parameter_cache::{parameter_cache_params_path, CacheableParameters},
};
use storage_proofs_update::{EmptySectorUpdateCircuit, EmptySectorUpdateCompound};

/// The sector sizes filecoin-proofs has registered proofs for, by the name
/// the registered proofs use.
pub fn size_label(size: u64) -> Result<&'static str> {
    Ok(match size {
        2048 => "2KiB",
        8_388_608 => "8MiB",
        536_870_912 => "512MiB",
        34_359_738_368 => "32GiB",
        68_719_476_736 => "64GiB",
        _ => bail!("--sector-size {}: not one of 2048, 8388608, 536870912, 34359738368, 68719476736", size),
    })
}

fn registered<T: serde::de::DeserializeOwned>(name: &str) -> Result<T> {
    serde_json::from_str(&format!("\"{}\"", name)).map_err(|e| anyhow!("{}: {}", name, e))
}

fn update_params<Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>>(size: u64) -> PathBuf {
    let pp = storage_proofs_update::PublicParams::from_sector_size(size);
    let id = <EmptySectorUpdateCompound<Tree> as CacheableParameters<EmptySectorUpdateCircuit<Tree>, _>>::cache_identifier(&pp);
    parameter_cache_params_path(&id)
}

/// Each kind's parameter file at this sector size, in the cache that
/// FIL_PROOFS_PARAMETER_CACHE names.
pub fn files(size: u64) -> Result<Vec<(&'static str, PathBuf)>> {
    let l = size_label(size)?;
    let seal: RegisteredSealProof = registered(&format!("StackedDrg{}V1_1", l))?;
    let winning: RegisteredPoStProof = registered(&format!("StackedDrgWinning{}V1", l))?;
    let window: RegisteredPoStProof = registered(&format!("StackedDrgWindow{}V1_2", l))?;
    let snap = match l {
        "2KiB" => update_params::<SectorShape2KiB>(size),
        "8MiB" => update_params::<SectorShape8MiB>(size),
        "512MiB" => update_params::<SectorShape512MiB>(size),
        "32GiB" => update_params::<SectorShape32GiB>(size),
        _ => update_params::<SectorShape64GiB>(size),
    };
    Ok(vec![
        ("porep", seal.cache_params_path()?),
        ("winning", winning.cache_params_path()?),
        ("window", window.cache_params_path()?),
        ("snap", snap),
    ])
}

/// Prints the lines; the number of circuits found.
pub fn list(size: u64) -> Result<usize> {
    let mut found = 0;
    for (kind, params) in files(size)? {
        let vk = params.with_extension("vk");
        let missing: Vec<String> = [&params, &vk].iter().filter(|p| !p.is_file()).map(|p| p.display().to_string()).collect();
        if missing.is_empty() {
            println!("{}\t{}\t{}\t{}", kind, size, params.display(), vk.display());
            found += 1;
        } else {
            eprintln!("zkslot-fil-synth: keys: {} {}: missing {}", kind, size_label(size)?, missing.join(" and "));
        }
    }
    Ok(found)
}
