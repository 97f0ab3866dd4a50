//! zkslot-bp-oracle -- bellperson as the oracle for zkslot's prover of
//! Filecoin-format (bellperson) keys.
//!
//! Subcommands (every circuit is named by CIRCUIT and LOG2, the domain it
//! fills; the witness by a seed):
//!   params  --circuit C --log2 K --seed S --out FILE.params
//!           bellperson's generate_random_parameters (ChaCha20 from S);
//!           writes FILE.params and FILE.vk beside it.
//!   assign  --circuit C --log2 K --witness W --out FILE.bpa
//!           synthesizes the circuit exactly as bellperson's prover does
//!           (ProvingAssignment: densities, a/b/c, one constraint per input
//!           appended) and writes zkslot's .bpa (docs/bellperson.md).
//!   prove   --circuit C --log2 K --witness W --params FILE --r HEX --s HEX
//!           --out PROOF   bellperson's create_proof with the given r and s
//!           (32-byte little-endian canonical scalars, hex): 192 bytes.
//!   verify  --circuit C --log2 K --witness W --vk FILE.vk --proof PROOF
//!           bellperson's verify_proof: exit 0 accepted, 1 rejected.
//!   bench   --circuit C --log2 K --witness W --params FILE --runs N
//!           bellperson's create_proof N times; prints one line per run with
//!           its own "prover time" (synthesis excluded) and the synthesis
//!           time, then the medians.
//! Errors: one line on stderr, exit 2.

use zkslot_bp_oracle::{assign, circuits};

use std::fs::File;
use std::io::{BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::exit;
use std::time::Instant;

use bellperson::groth16;
use blstrs::{Bls12, Scalar as Fr};
use ff::PrimeField;
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

use circuits::TestCircuit;

fn die(msg: String) -> ! {
    eprintln!("zkslot-bp-oracle: {msg}");
    exit(2)
}

struct Args {
    cmd: String,
    opts: Vec<(String, String)>,
}

impl Args {
    fn parse() -> Args {
        let mut it = std::env::args().skip(1);
        let cmd = it.next().unwrap_or_else(|| die("usage: zkslot-bp-oracle params|assign|prove|verify|bench --opt value ...".into()));
        let mut opts = Vec::new();
        while let Some(k) = it.next() {
            let Some(name) = k.strip_prefix("--") else { die(format!("unexpected argument {k}")) };
            let v = it.next().unwrap_or_else(|| die(format!("--{name} needs a value")));
            opts.push((name.to_string(), v));
        }
        Args { cmd, opts }
    }
    fn get(&self, name: &str) -> &str {
        self.opts.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
            .unwrap_or_else(|| die(format!("{}: --{name} is required", self.cmd)))
    }
    fn num(&self, name: &str) -> u64 {
        let v = self.get(name);
        v.parse().unwrap_or_else(|_| die(format!("--{name} {v}: not a number")))
    }
    fn circuit(&self, with_witness: bool) -> TestCircuit {
        let log2 = self.num("log2") as u32;
        let w = if with_witness { Some(self.num("witness")) } else { None };
        TestCircuit::new(self.get("circuit"), log2, w).unwrap_or_else(|e| die(e))
    }
}

fn scalar_hex(name: &str, hex: &str) -> Fr {
    let bytes: Vec<u8> = (0..hex.len()).step_by(2)
        .map(|i| u8::from_str_radix(hex.get(i..i + 2).unwrap_or("x"), 16)
            .unwrap_or_else(|_| die(format!("--{name}: not hex"))))
        .collect();
    if bytes.len() != 32 { die(format!("--{name}: {} bytes, not 32", bytes.len())) }
    let mut repr = <Fr as PrimeField>::Repr::default();
    repr.as_mut().copy_from_slice(&bytes);
    Option::from(Fr::from_repr(repr)).unwrap_or_else(|| die(format!("--{name}: not below the group order")))
}

fn vk_path(params: &Path) -> PathBuf { params.with_extension("vk") }

fn read_params(path: &str) -> groth16::Parameters<Bls12> {
    let f = File::open(path).unwrap_or_else(|e| die(format!("{path}: {e}")));
    groth16::Parameters::read(BufReader::new(f), false).unwrap_or_else(|e| die(format!("{path}: {e}")))
}

fn create(path: &Path) -> BufWriter<File> {
    BufWriter::new(File::create(path).unwrap_or_else(|e| die(format!("{}: {e}", path.display()))))
}

fn cmd_params(a: &Args) {
    let c = a.circuit(false);
    let mut rng = ChaCha20Rng::seed_from_u64(a.num("seed"));
    let t = Instant::now();
    let p = groth16::generate_random_parameters::<Bls12, _, _>(c, &mut rng)
        .unwrap_or_else(|e| die(format!("generate_random_parameters: {e}")));
    let out = PathBuf::from(a.get("out"));
    let mut w = create(&out);
    p.write(&mut w).and_then(|_| w.flush()).unwrap_or_else(|e| die(format!("{}: {e}", out.display())));
    let vk = vk_path(&out);
    let mut w = create(&vk);
    p.vk.write(&mut w).and_then(|_| w.flush()).unwrap_or_else(|e| die(format!("{}: {e}", vk.display())));
    eprintln!("params: h {} l {} a {} b_g1 {} b_g2 {} ic {} in {:.1} s",
        p.h.len(), p.l.len(), p.a.len(), p.b_g1.len(), p.b_g2.len(), p.vk.ic.len(),
        t.elapsed().as_secs_f64());
}

fn cmd_assign(a: &Args) {
    let c = a.circuit(true);
    let pa = assign::synthesize(c).unwrap_or_else(|e| die(format!("synthesis: {e}")));
    let out = PathBuf::from(a.get("out"));
    let mut w = create(&out);
    pa.write_bpa(&mut w).and_then(|_| w.flush()).unwrap_or_else(|e| die(format!("{}: {e}", out.display())));
    eprintln!("assign: inputs {} aux {} constraints {}", pa.input.len(), pa.aux.len(), pa.a.len());
}

fn cmd_prove(a: &Args) {
    let c = a.circuit(true);
    let params = read_params(a.get("params"));
    let r = scalar_hex("r", a.get("r"));
    let s = scalar_hex("s", a.get("s"));
    let proof = groth16::create_proof::<Bls12, _, _>(c, &params, r, s)
        .unwrap_or_else(|e| die(format!("create_proof: {e}")));
    let out = PathBuf::from(a.get("out"));
    let mut w = create(&out);
    proof.write(&mut w).and_then(|_| w.flush()).unwrap_or_else(|e| die(format!("{}: {e}", out.display())));
}

fn cmd_verify(a: &Args) {
    let c = a.circuit(true);
    let inputs = assign::synthesize(c).unwrap_or_else(|e| die(format!("synthesis: {e}"))).input;
    let vkp = a.get("vk");
    let f = File::open(vkp).unwrap_or_else(|e| die(format!("{vkp}: {e}")));
    let vk = groth16::VerifyingKey::<Bls12>::read(BufReader::new(f)).unwrap_or_else(|e| die(format!("{vkp}: {e}")));
    let pp = a.get("proof");
    let bytes = std::fs::read(pp).unwrap_or_else(|e| die(format!("{pp}: {e}")));
    if bytes.len() != 192 { die(format!("{pp}: {} bytes, not 192", bytes.len())) }
    let accepted = match groth16::Proof::<Bls12>::read(&bytes[..]) {
        Ok(proof) => groth16::verify_proof(&groth16::prepare_verifying_key(&vk), &proof, &inputs[1..])
            .unwrap_or(false),
        Err(_) => false,
    };
    println!("{}", if accepted { "accepted" } else { "rejected" });
    exit(if accepted { 0 } else { 1 })
}

/// Peak resident set of this process (VmHWM), in KiB.
fn peak_rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status").ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("VmHWM:"))
            .and_then(|l| l.split_whitespace().nth(1)).and_then(|v| v.parse().ok()))
        .unwrap_or(0)
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|x, y| x.partial_cmp(y).unwrap());
    v[v.len() / 2]
}

fn cmd_bench(a: &Args) {
    let params = read_params(a.get("params"));
    let runs = a.num("runs").max(1);
    let (mut prove, mut synth) = (Vec::new(), Vec::new());
    let r = Fr::from(0x1234_5678u64);
    let s = Fr::from(0x9abc_def0u64);
    for i in 0..runs {
        // synthesis measured alone, then subtracted from create_proof's wall
        // time: create_proof synthesizes the same circuit the same way first.
        let t = Instant::now();
        let _ = assign::synthesize(a.circuit(true)).unwrap_or_else(|e| die(format!("synthesis: {e}")));
        let ts = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let _ = groth16::create_proof::<Bls12, _, _>(a.circuit(true), &params, r, s)
            .unwrap_or_else(|e| die(format!("create_proof: {e}")));
        let tp = t.elapsed().as_secs_f64() - ts;
        println!("run {i}: prove {tp:.3} s (synthesis {ts:.3} s excluded)");
        prove.push(tp);
        synth.push(ts);
    }
    println!("bellperson: prove median {:.3} s over {runs} runs, synthesis median {:.3} s, peak rss {} KiB",
        median(&mut prove), median(&mut synth), peak_rss_kib());
}

fn main() {
    // bellperson logs its own "prover time" (synthesis excluded) at info:
    // RUST_LOG=bellperson=info shows it (tools/bench-bellperson.sh reads it)
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"))
        .format_timestamp(None)
        .init();
    let a = Args::parse();
    match a.cmd.as_str() {
        "params" => cmd_params(&a),
        "assign" => cmd_assign(&a),
        "prove" => cmd_prove(&a),
        "verify" => cmd_verify(&a),
        "bench" => cmd_bench(&a),
        other => die(format!("unknown command {other}")),
    }
}
