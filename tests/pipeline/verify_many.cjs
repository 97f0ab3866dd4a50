// verify_many.cjs VK.json PUBLIC.json PROOF.json [PUBLIC.json PROOF.json ...]
// snarkjs groth16 verify for many proofs in one node process (loading
// snarkjs once): prints "ok PROOF" or "INVALID PROOF" per proof and exits
// 0 only if every proof is valid.
const path = require("path");
const fs = require("fs");
const nm = path.join(__dirname, "..", "interop", "node_modules", "snarkjs", "build", "main.cjs");
const snarkjs = require(nm);

async function main() {
    const args = process.argv.slice(2);
    if (args.length < 3 || (args.length - 1) % 2) {
        console.error("usage: verify_many.cjs VK.json (PUBLIC.json PROOF.json)...");
        process.exit(2);
    }
    const vk = JSON.parse(fs.readFileSync(args[0]));
    let bad = 0;
    for (let i = 1; i < args.length; i += 2) {
        const pub = JSON.parse(fs.readFileSync(args[i]));
        const proof = JSON.parse(fs.readFileSync(args[i + 1]));
        const ok = await snarkjs.groth16.verify(vk, pub, proof, { info() {}, debug() {}, warn() {}, error: console.error });
        console.log((ok ? "ok " : "INVALID ") + args[i + 1]);
        if (!ok) bad++;
    }
    process.exit(bad ? 1 : 0);
}
main().catch((e) => { console.error(e); process.exit(2); });
