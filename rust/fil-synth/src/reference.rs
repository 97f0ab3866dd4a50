//! filecoin-proofs' own verifiers and CPU provers on the same inputs, via
//! filecoin-proofs-api (the calls lotus/curio make): the reference that
//! zkslot's proofs are checked by and timed against.

use std::collections::BTreeMap;

use anyhow::Result;
use filecoin_proofs_api::{
    post, seal, update, PartitionProofBytes, PublicReplicaInfo, SectorId,
};

use crate::synth::Input;

/// filecoin-proofs' verify_seal / verify_winning_post / verify_window_post /
/// verify_empty_sector_update_proof on the concatenated partition proofs.
pub fn verify(input: &Input, proof: &[u8]) -> Result<bool> {
    match input {
        Input::Porep(c1) => {
            let p = &c1.phase1;
            seal::verify_seal(
                p.registered_proof,
                p.comm_r,
                p.comm_d,
                c1.prover_id,
                SectorId::from(c1.sector_num),
                p.ticket,
                p.seed,
                proof,
            )
        }
        Input::Post(p) => {
            let mut replicas = BTreeMap::new();
            for (id, comm_r) in &p.sectors {
                replicas.insert(SectorId::from(*id), PublicReplicaInfo::new(p.registered_proof, *comm_r));
            }
            if p.registered_proof.typ() == filecoin_proofs::PoStType::Winning {
                post::verify_winning_post(&p.randomness, proof, &replicas, p.prover_id)
            } else {
                post::verify_window_post(&p.randomness, &[(p.registered_proof, proof)], &replicas, p.prover_id)
            }
        }
        Input::Snap(s) => update::verify_empty_sector_update_proof(
            s.registered_proof,
            proof,
            s.comm_r_old,
            s.comm_r_new,
            s.comm_d_new,
        ),
    }
}

/// filecoin-proofs' own prover: seal_commit_phase2 (which verifies its
/// proof before returning it), generate_{winning,window}_post_with_vanilla,
/// generate_empty_sector_update_proof_with_vanilla.
pub fn prove(input: &Input) -> Result<Vec<u8>> {
    match input {
        Input::Porep(c1) => Ok(seal::seal_commit_phase2(c1.phase1.clone(), c1.prover_id, SectorId::from(c1.sector_num))?.proof),
        Input::Post(p) => {
            let out = if p.registered_proof.typ() == filecoin_proofs::PoStType::Winning {
                post::generate_winning_post_with_vanilla(p.registered_proof, &p.randomness, p.prover_id, &p.vanilla_proofs)?
            } else {
                post::generate_window_post_with_vanilla(p.registered_proof, &p.randomness, p.prover_id, &p.vanilla_proofs)?
            };
            Ok(out.into_iter().next().map(|x| x.1).unwrap_or_default())
        }
        Input::Snap(s) => {
            let v = s.vanilla_proofs.iter().map(|b| PartitionProofBytes(b.clone())).collect();
            Ok(update::generate_empty_sector_update_proof_with_vanilla(
                s.registered_proof,
                v,
                s.comm_r_old,
                s.comm_r_new,
                s.comm_d_new,
            )?
            .0)
        }
    }
}
