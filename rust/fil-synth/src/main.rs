//! zkslot-fil-synth: Filecoin's Groth16 circuits (PoRep C2, WinningPoSt,
//! WindowPoSt, SnapDeals) synthesized with the upstream crates
//! (filecoin-proofs 19.1) into the proving assignments zkslot proves
//! (.bpa), plus the upstream parameter generator, test inputs, verifier and
//! CPU prover around it.  docs/filecoin.md describes the commands.
//!
//! Exit status: 0 done (verify: accepted), 1 verify: rejected, 2 bad
//! usage or input (one line on stderr naming the input and the problem).

mod count;
mod inputs;
mod keys;
mod params;
mod parts;
mod reference;
mod sectors;
mod synth;

use std::fs;
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Instant;

use anyhow::{anyhow, bail, Context, Result};

use crate::inputs::Kind;
use crate::synth::Input;

const USAGE: &str = "usage:
  zkslot-fil-synth params --cache DIR [--sector-size 2048] [--seed N] [--kinds porep,winning,window,snap]
  zkslot-fil-synth sectors --cache DIR --out DIR [--seed N]
  zkslot-fil-synth partitions --kind porep|winning|window|snap --input FILE [--cache DIR]
  zkslot-fil-synth split --kind KIND --input FILE --out-dir DIR [--cache DIR]
  zkslot-fil-synth synth --kind KIND --input FILE --partition K --out FILE.bpa [--cache DIR]
  zkslot-fil-synth synth --input PART.json --out FILE.bpa [--expect KIND]
  zkslot-fil-synth keys --cache DIR [--sector-size 2048]
  zkslot-fil-synth count --kind KIND [--sector-size 2048]
  zkslot-fil-synth verify --kind KIND --input FILE --proof PROOF.bin --cache DIR
  zkslot-fil-synth prove-ref --kind KIND --input FILE --out PROOF.bin --cache DIR";

/// What a panic inside the upstream code is about (for its one line).
static CONTEXT: Mutex<String> = Mutex::new(String::new());

fn set_context(s: &str) {
    *CONTEXT.lock().unwrap_or_else(|e| e.into_inner()) = s.to_string();
}

struct Args {
    cmd: String,
    opts: Vec<(String, String)>,
}

impl Args {
    fn parse() -> Result<Args> {
        let mut it = std::env::args().skip(1);
        let cmd = it.next().ok_or_else(|| anyhow!("no command\n{}", USAGE))?;
        if cmd == "-h" || cmd == "--help" {
            println!("{}", USAGE);
            std::process::exit(0);
        }
        let mut opts = Vec::new();
        while let Some(k) = it.next() {
            if !k.starts_with("--") {
                bail!("{}: unexpected argument", k);
            }
            let v = it.next().ok_or_else(|| anyhow!("{}: needs a value", k))?;
            opts.push((k[2..].to_string(), v));
        }
        Ok(Args { cmd, opts })
    }
    fn get(&self, k: &str) -> Option<&str> {
        self.opts.iter().rev().find(|(a, _)| a == k).map(|(_, v)| v.as_str())
    }
    fn need(&self, k: &str) -> Result<&str> {
        self.get(k).ok_or_else(|| anyhow!("{}: --{} is required", self.cmd, k))
    }
    fn allow(&self, keys: &[&str]) -> Result<()> {
        for (k, _) in &self.opts {
            if !keys.contains(&k.as_str()) {
                bail!("{}: unknown option --{}", self.cmd, k);
            }
        }
        Ok(())
    }
    fn num(&self, k: &str, default: u64) -> Result<u64> {
        match self.get(k) {
            None => Ok(default),
            Some(v) => v.parse().map_err(|_| anyhow!("--{} {}: not a number", k, v)),
        }
    }
}

/// FIL_PROOFS_PARAMETER_CACHE must be set before filecoin-proofs reads its
/// settings (once, lazily).
fn set_cache(dir: Option<&str>, create: bool) -> Result<()> {
    if let Some(d) = dir {
        if create {
            fs::create_dir_all(d).with_context(|| format!("--cache {}", d))?;
        } else if !std::path::Path::new(d).is_dir() {
            bail!("--cache {}: not a directory", d);
        }
        let abs = fs::canonicalize(d).with_context(|| format!("--cache {}", d))?;
        let mut s = abs.display().to_string();
        if !s.ends_with('/') {
            s.push('/');
        }
        std::env::set_var("FIL_PROOFS_PARAMETER_CACHE", s);
    }
    Ok(())
}

fn read_input(a: &Args) -> Result<Input> {
    let kind = Kind::parse(a.need("kind")?)?;
    let path = a.need("input")?;
    set_context(path);
    let bytes = fs::read(path).with_context(|| format!("--input {}", path))?;
    let input = match kind {
        Kind::Porep => inputs::read_c1(&bytes).map(Input::Porep),
        Kind::Winning | Kind::Window => inputs::read_post(&bytes, kind).map(Input::Post),
        Kind::Snap => inputs::read_snap(&bytes).map(Input::Snap),
    }
    .with_context(|| path.to_string())?;
    Ok(input)
}

fn run(a: &Args) -> Result<i32> {
    match a.cmd.as_str() {
        "params" => {
            a.allow(&["cache", "sector-size", "seed", "kinds"])?;
            set_cache(Some(a.need("cache")?), true)?;
            set_context("params");
            let kinds = a.get("kinds").unwrap_or("porep,winning,window,snap");
            let kinds = kinds.split(',').map(Kind::parse).collect::<Result<Vec<_>>>()?;
            params::generate(a.num("sector-size", 2048)?, a.num("seed", 0)?, &kinds)?;
        }
        "sectors" => {
            a.allow(&["cache", "out", "seed"])?;
            set_cache(Some(a.need("cache")?), true)?;
            set_context("sectors");
            let out = PathBuf::from(a.need("out")?);
            sectors::make(&out, a.num("seed", 0)?).with_context(|| format!("--out {}", out.display()))?;
        }
        "partitions" => {
            a.allow(&["kind", "input", "cache"])?;
            set_cache(a.get("cache"), false)?;
            let input = read_input(a)?;
            let path = a.need("input")?;
            let plan = synth::plan(&input).with_context(|| path.to_string())?;
            println!("partitions {}", plan.partitions);
            println!("params {}", plan.params.display());
        }
        "split" => {
            a.allow(&["kind", "input", "out-dir", "cache"])?;
            set_cache(a.get("cache"), false)?;
            let dir = PathBuf::from(a.need("out-dir")?);
            let input = read_input(a)?;
            let path = a.need("input")?;
            let parts = parts::split(&input).with_context(|| path.to_string())?;
            for p in parts::write(&parts, &dir)? {
                println!("{}", p.display());
            }
        }
        "synth" => {
            a.allow(&["kind", "input", "partition", "out", "cache", "expect"])?;
            set_cache(a.get("cache"), false)?;
            let out = a.need("out")?;
            let t = Instant::now();
            let (asg, kind, k, n) = if a.get("partition").is_some() || a.get("kind").is_some() {
                // the whole input and a partition index
                let k = a.need("partition")?;
                let k: usize = k.parse().map_err(|_| anyhow!("--partition {}: not a number", k))?;
                let input = read_input(a)?;
                let path = a.need("input")?;
                let (asg, n) = synth::synth(&input, k).with_context(|| path.to_string())?;
                (asg, synth::kind_of(&input), k, n)
            } else {
                // a part file, as `split` writes it
                let path = a.need("input")?;
                set_context(path);
                let bytes = fs::read(path).with_context(|| format!("--input {}", path))?;
                let part = parts::read(&bytes).with_context(|| path.to_string())?;
                let (k, n) = part.index();
                // a key's generator names the kind its key proves: a part
                // of another kind is the submitter's mistake, said here
                if let Some(e) = a.get("expect") {
                    let want = Kind::parse(e)?;
                    if part.kind() != want {
                        bail!("{}: a {:?} part, but this key proves {:?}", path, part.kind(), want);
                    }
                }
                let asg = parts::synth(&part).with_context(|| path.to_string())?;
                (asg, part.kind(), k, n)
            };
            let ts = t.elapsed().as_secs_f64();
            let t = Instant::now();
            let f = fs::File::create(out).with_context(|| format!("--out {}", out))?;
            let mut w = BufWriter::with_capacity(1 << 20, f);
            asg.write_bpa(&mut w).and_then(|_| w.flush()).with_context(|| format!("--out {}", out))?;
            let tw = t.elapsed().as_secs_f64();
            let rows = asg.a.len();
            println!(
                "{:?} partition {}/{}: {} inputs (with ONE), {} aux, {} constraints with the input rows (domain 2^{}); synth {:.3} s, write {:.3} s -> {} ({} bytes)",
                kind,
                k,
                n,
                asg.input.len(),
                asg.aux.len(),
                rows,
                rows.next_power_of_two().trailing_zeros(),
                ts,
                tw,
                out,
                fs::metadata(out).map(|m| m.len()).unwrap_or(0)
            );
        }
        "count" => {
            a.allow(&["kind", "sector-size"])?;
            set_context("count");
            count::print(Kind::parse(a.need("kind")?)?, a.num("sector-size", 2048)?)?;
        }
        "keys" => {
            a.allow(&["cache", "sector-size"])?;
            set_cache(Some(a.need("cache")?), false)?;
            let size = a.num("sector-size", 2048)?;
            if keys::list(size)? == 0 {
                bail!("--cache {}: no Filecoin parameters for {} sectors", a.need("cache")?, keys::size_label(size)?);
            }
        }
        "verify" => {
            a.allow(&["kind", "input", "proof", "cache"])?;
            set_cache(Some(a.need("cache")?), false)?;
            let input = read_input(a)?;
            let path = a.need("input")?;
            let plan = synth::plan(&input).with_context(|| path.to_string())?;
            let vk = plan.params.with_extension("vk");
            if !vk.exists() {
                bail!("--cache: no verifying key {} (run zkslot-fil-synth params)", vk.display());
            }
            let pp = a.need("proof")?;
            let proof = fs::read(pp).with_context(|| format!("--proof {}", pp))?;
            if proof.len() != 192 * plan.partitions {
                bail!("{}: {} bytes, expected {} ({} partition proofs of 192 bytes)", pp, proof.len(), 192 * plan.partitions, plan.partitions);
            }
            set_context(pp);
            let t = Instant::now();
            match reference::verify(&input, &proof) {
                Ok(true) => {
                    println!("accepted ({:.3} s)", t.elapsed().as_secs_f64());
                    return Ok(0);
                }
                Ok(false) => {
                    println!("rejected ({:.3} s)", t.elapsed().as_secs_f64());
                    return Ok(1);
                }
                Err(e) => {
                    println!("rejected: {} ({:.3} s)", one_line(&format!("{:#}", e)), t.elapsed().as_secs_f64());
                    return Ok(1);
                }
            }
        }
        "prove-ref" => {
            a.allow(&["kind", "input", "out", "cache"])?;
            set_cache(Some(a.need("cache")?), false)?;
            let input = read_input(a)?;
            let path = a.need("input")?;
            let out = a.need("out")?;
            let t = Instant::now();
            let proof = reference::prove(&input).with_context(|| path.to_string())?;
            let dt = t.elapsed().as_secs_f64();
            fs::write(out, &proof).with_context(|| format!("--out {}", out))?;
            println!(
                "filecoin-proofs CPU prover, {:?}: {} bytes ({} partitions) in {:.3} s -> {}",
                synth::kind_of(&input),
                proof.len(),
                proof.len() / 192,
                dt,
                out
            );
        }
        other => bail!("{}: unknown command\n{}", other, USAGE),
    }
    Ok(0)
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn main() {
    std::panic::set_hook(Box::new(|info| {
        let msg = if let Some(s) = info.payload().downcast_ref::<&str>() {
            s.to_string()
        } else if let Some(s) = info.payload().downcast_ref::<String>() {
            s.clone()
        } else {
            "panic".to_string()
        };
        let ctx = CONTEXT.lock().map(|c| c.clone()).unwrap_or_default();
        eprintln!("zkslot-fil-synth: {}: upstream code panicked: {}", ctx, one_line(&msg));
        std::process::exit(2);
    }));
    let code = match Args::parse().and_then(|a| run(&a)) {
        Ok(c) => c,
        Err(e) => {
            let s = format!("{:#}", e);
            if s.contains('\n') && s.contains("usage:") {
                eprintln!("zkslot-fil-synth: {}", s);
            } else {
                eprintln!("zkslot-fil-synth: {}", one_line(&s));
            }
            2
        }
    };
    std::process::exit(code);
}
