//! Test inputs made with filecoin-proofs-api from random data, the way its
//! own tests (tests/api.rs) and a storage provider make them: 2 KiB sectors
//! sealed (add_piece, seal_pre_commit_phase1/2, seal_commit_phase1), the
//! C1 file of sector 1 (and of sector 2, for the tests that need another
//! sector's vanilla proofs), WinningPoSt over sector 1, WindowPoSt over
//! sectors 1..5 (3 partitions of 2 sectors at 2 KiB), and an empty sector
//! update (SnapDeals) of sector 6 with new random data.  Formats: inputs.rs.

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{ensure, Context, Result};
use ff::{Field, PrimeField};
use filecoin_proofs_api::{
    post, seal, update, Commitment, PaddedBytesAmount, PieceInfo, PrivateReplicaInfo,
    RegisteredPoStProof, RegisteredSealProof, RegisteredUpdateProof, SectorId, UnpaddedBytesAmount,
};
use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};

use crate::inputs::{prover_id_of_actor, to_hex, C1File, PostFile, PubSector, SnapFile, B64};
use base64::Engine;

const SEAL: RegisteredSealProof = RegisteredSealProof::StackedDrg2KiBV1_1;
const SIZE: u64 = 2048;

struct Sealed {
    id: u64,
    comm_r: Commitment,
    cache: PathBuf,
    replica: PathBuf,
    c1: seal::SealCommitPhase1Output,
}

fn random_data(rng: &mut ChaCha20Rng, path: &Path) -> Result<(PieceInfo, PathBuf)> {
    let n = UnpaddedBytesAmount::from(PaddedBytesAmount(SIZE));
    let mut data = vec![0u8; n.0 as usize];
    rng.fill_bytes(&mut data);
    let piece = path.with_extension("piece");
    fs::write(&piece, &data)?;
    let staged = path.to_path_buf();
    let mut target = OpenOptions::new().read(true).write(true).create(true).truncate(true).open(&staged)?;
    let (info, _) = seal::add_piece(SEAL, File::open(&piece)?, &mut target, n, &[])?;
    target.flush()?;
    fs::remove_file(&piece)?;
    Ok((info, staged))
}

fn fr_bytes(rng: &mut ChaCha20Rng) -> [u8; 32] {
    let f = blstrs::Scalar::random(&mut *rng);
    let mut b = [0u8; 32];
    b.copy_from_slice(f.to_repr().as_ref());
    b
}

fn seal_one(rng: &mut ChaCha20Rng, out: &Path, id: u64, prover_id: [u8; 32]) -> Result<Sealed> {
    let dir = out.join(format!("sector-{}", id));
    let cache = dir.join("cache");
    fs::create_dir_all(&cache)?;
    let (info, staged) = random_data(rng, &dir.join("staged"))?;
    let replica = dir.join("sealed");
    File::create(&replica)?;
    let mut ticket = [0u8; 32];
    rng.fill_bytes(&mut ticket);
    let mut seed = [0u8; 32];
    rng.fill_bytes(&mut seed);
    let infos = [info];
    let p1 = seal::seal_pre_commit_phase1(SEAL, &cache, &staged, &replica, prover_id, SectorId::from(id), ticket, &infos)?;
    let p2 = seal::seal_pre_commit_phase2(p1, &cache, &replica)?;
    let comm_r = p2.comm_r;
    let c1 = seal::seal_commit_phase1(&cache, &replica, prover_id, SectorId::from(id), ticket, seed, p2, &infos)?;
    fs::remove_file(&staged)?;
    Ok(Sealed { id, comm_r, cache, replica, c1 })
}

fn write_json<T: serde::Serialize>(path: &Path, v: &T) -> Result<()> {
    let mut f = File::create(path).with_context(|| format!("{}", path.display()))?;
    serde_json::to_writer(&mut f, v)?;
    f.write_all(b"\n")?;
    Ok(())
}

fn write_c1(path: &Path, s: &Sealed) -> Result<()> {
    let inner = serde_json::to_vec(&s.c1)?;
    write_json(path, &C1File { sector_num: s.id, phase1_out: B64.encode(inner), sector_size: SIZE, prover_id: None })
}

fn post_file(
    reg: RegisteredPoStProof,
    sectors: &[&Sealed],
    rng: &mut ChaCha20Rng,
    prover_id: [u8; 32],
) -> Result<PostFile> {
    let randomness = fr_bytes(rng);
    let ids: Vec<SectorId> = sectors.iter().map(|s| SectorId::from(s.id)).collect();
    let challenges = post::generate_fallback_sector_challenges(reg, &randomness, &ids, prover_id)?;
    let mut vanilla = Vec::new();
    let mut pubs = Vec::new();
    // The verifier orders the replicas by sector id: so do the proofs.
    let mut sorted: Vec<&&Sealed> = sectors.iter().collect();
    sorted.sort_by_key(|s| s.id);
    for s in sorted {
        let info = PrivateReplicaInfo::new(reg, s.comm_r, s.cache.clone(), s.replica.clone());
        let v = post::generate_single_vanilla_proof(reg, SectorId::from(s.id), &info, &challenges[&SectorId::from(s.id)])?;
        vanilla.push(B64.encode(v));
        pubs.push(PubSector { sector_id: s.id, comm_r: to_hex(&s.comm_r) });
    }
    Ok(PostFile {
        registered_proof: reg,
        randomness: to_hex(&randomness),
        prover_id: to_hex(&prover_id),
        sectors: pubs,
        vanilla_proofs: vanilla,
    })
}

pub fn make(out: &Path, seed: u64) -> Result<()> {
    fs::create_dir_all(out).with_context(|| format!("--out {}", out.display()))?;
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let prover_id = prover_id_of_actor(1000);

    let t = Instant::now();
    let mut sealed = Vec::new();
    for id in 1..=6u64 {
        sealed.push(seal_one(&mut rng, out, id, prover_id)?);
    }
    println!("sealed 6 sectors of 2 KiB (ids 1..6, prover f01000): {:.2} s", t.elapsed().as_secs_f64());

    let c1 = out.join("porep-c1.json");
    write_c1(&c1, &sealed[0])?;
    write_c1(&out.join("porep-c1-sector2.json"), &sealed[1])?;
    println!("{}: sector 1's C1 output ({} partition)", c1.display(), SEAL.partitions());

    let t = Instant::now();
    let winning = post_file(RegisteredPoStProof::StackedDrgWinning2KiBV1, &[&sealed[0]], &mut rng, prover_id)?;
    write_json(&out.join("winning.json"), &winning)?;
    println!("{}: WinningPoSt over sector 1 ({:.2} s)", out.join("winning.json").display(), t.elapsed().as_secs_f64());

    let t = Instant::now();
    let wreg = RegisteredPoStProof::StackedDrgWindow2KiBV1_2;
    let five: Vec<&Sealed> = sealed[..5].iter().collect();
    let window = post_file(wreg, &five, &mut rng, prover_id)?;
    let parts = post::get_num_partition_for_fallback_post(wreg, five.len())?;
    ensure!(parts == 3, "5 sectors make {} WindowPoSt partitions at 2 KiB, expected 3", parts);
    write_json(&out.join("window.json"), &window)?;
    println!(
        "{}: WindowPoSt over sectors 1..5, {} sectors per partition, {} partitions ({:.2} s)",
        out.join("window.json").display(),
        wreg.sector_count(),
        parts,
        t.elapsed().as_secs_f64()
    );

    // SnapDeals: sector 6 is the sector key, new random data is encoded in.
    let t = Instant::now();
    let ureg = RegisteredUpdateProof::StackedDrg2KiBV1;
    let key = &sealed[5];
    let dir = out.join("snap-6");
    let new_cache = dir.join("cache");
    fs::create_dir_all(&new_cache)?;
    let (info, staged) = random_data(&mut rng, &dir.join("staged"))?;
    let new_replica = dir.join("updated");
    let f = OpenOptions::new().read(true).write(true).create(true).truncate(true).open(&new_replica)?;
    f.set_len(fs::metadata(&key.replica)?.len())?;
    drop(f);
    let enc = update::empty_sector_update_encode_into(ureg, &new_replica, &new_cache, &key.replica, &key.cache, &staged, &[info])?;
    let proofs = update::generate_partition_proofs(
        ureg,
        key.comm_r,
        enc.comm_r_new,
        enc.comm_d_new,
        &key.replica,
        &key.cache,
        &new_replica,
        &new_cache,
    )?;
    ensure!(update::verify_partition_proofs(ureg, &proofs, key.comm_r, enc.comm_r_new, enc.comm_d_new)?, "the update's vanilla proofs do not verify");
    let snap = SnapFile {
        registered_proof: ureg,
        comm_r_old: to_hex(&key.comm_r),
        comm_r_new: to_hex(&enc.comm_r_new),
        comm_d_new: to_hex(&enc.comm_d_new),
        vanilla_proofs: proofs.iter().map(|p| B64.encode(&p.0)).collect(),
    };
    write_json(&out.join("snap.json"), &snap)?;
    fs::remove_file(&staged)?;
    println!(
        "{}: empty sector update of sector 6, {} partition(s) ({:.2} s)",
        out.join("snap.json").display(),
        proofs.len(),
        t.elapsed().as_secs_f64()
    );
    Ok(())
}
