#!/usr/bin/env node
// Checks a donation's proof or a contribution's receipt from an Almoner ledger offline, with
// Node's crypto alone, given the log's verifier key (GET /v1/ledger/key, or as the platform
// publishes it elsewhere):
//   almoner-verify-ledger proof.json 'name+id+base64key' [--witness 'name+id+key' ...] [--threshold N]
// proof.json: GET /v1/donations/{id}/proof, or GET /v1/contributions/{id}/receipt (its `ledger`).
// It checks that the checkpoint is signed by that key (and cosigned by N of the witnesses), that
// each entry's leaf hash is SHA-256(0x00 || its encoding), and that its inclusion proof (RFC 6962)
// leads to the checkpoint's root; for a receipt, also that the entries are the contribution's and
// its verification code is that of the entry it names.
// Exit code 0: verified; 1: not; 2: bad arguments.
import { createHash, createPublicKey, verify } from 'node:crypto';
import { readFileSync } from 'node:fs';

const sha256 = (...parts) => parts.reduce((h, p) => h.update(p), createHash('sha256')).digest();
const leafHash = (data) => sha256(Buffer.of(0), data);
const nodeHash = (l, r) => sha256(Buffer.of(1), l, r);

function parseKey(text) {
  const m = /^([^+\s]+)\+([0-9a-fA-F]{8})\+([A-Za-z0-9+/=]+)$/.exec(text.trim());
  if (m === null) throw new Error(`not a verifier key: ${text}`);
  const bytes = Buffer.from(m[3], 'base64');
  const type = bytes[0];
  if (bytes.length !== 33 || (type !== 1 && type !== 4)) throw new Error(`${m[1]}: not an Ed25519 key`);
  const raw = bytes.subarray(1);
  const id = sha256(Buffer.from(`${m[1]}\n`), Buffer.of(type), raw).subarray(0, 4);
  if (id.toString('hex') !== m[2].toLowerCase()) throw new Error(`${m[1]}: its id is not its key's`);
  return { name: m[1], type, id, key: createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: raw.toString('base64url') }, format: 'jwk' }) };
}

function openNote(note, signer, witnesses) {
  const at = note.lastIndexOf('\n\n');
  if (at < 0) throw new Error('the checkpoint is not a signed note');
  const text = note.slice(0, at + 1);
  let signed = false;
  const cosigned = new Set();
  for (const line of note
    .slice(at + 2)
    .split('\n')
    .filter((l) => l !== '')) {
    const m = /^\u2014 (\S+) ([A-Za-z0-9+/=]+)$/u.exec(line);
    if (m === null) throw new Error(`not a signature line: ${line}`);
    const bytes = Buffer.from(m[2], 'base64');
    const key = [signer, ...witnesses].find((k) => k.name === m[1] && k.id.equals(bytes.subarray(0, 4)));
    if (key === undefined) continue;
    if (key.type === 1) {
      if (!verify(null, Buffer.from(text), key.key, bytes.subarray(4))) throw new Error(`the signature of ${key.name} does not verify`);
      signed = true;
    } else {
      const time = bytes.readBigUInt64BE(4);
      if (!verify(null, Buffer.from(`cosignature/v1\ntime ${time}\n${text}`), key.key, bytes.subarray(12))) throw new Error(`the cosignature of ${key.name} does not verify`);
      cosigned.add(key.name);
    }
  }
  if (!signed) throw new Error(`the checkpoint is not signed by ${signer.name}`);
  const [origin, size, root] = text.split('\n');
  return { origin, size: Number(size), root: Buffer.from(root, 'base64'), cosigned: cosigned.size };
}

// RFC 9162 §2.1.3.2.
function included(leaf, index, size, proof, root) {
  if (index >= size) return false;
  let fn = index;
  let sn = size - 1;
  let r = leaf;
  for (const p of proof) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = nodeHash(p, r);
      while (fn % 2 === 0 && fn !== 0) {
        fn = Math.floor(fn / 2);
        sn = Math.floor(sn / 2);
      }
    } else {
      r = nodeHash(r, p);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && r.equals(root);
}

// A receipt's statements against its entries' encodings (docs/rules.md §26): the contribution's
// id in each, and the code the PDF prints, from the hash of the entry the receipt names.
function checkReceipt(receipt, entries) {
  for (const e of entries) {
    if (JSON.parse(e.encoded)[7] !== receipt.contribution_id) throw new Error(`entry ${e.id} is not of contribution ${receipt.contribution_id}`);
  }
  const named = entries.find((e) => e.id === receipt.ledger.entry_id);
  if (named === undefined) throw new Error(`the proof holds no entry ${receipt.ledger.entry_id}`);
  const code = Buffer.from(named.leaf_hash, 'base64').toString('hex').slice(0, 16).toUpperCase().match(/.{4}/g).join('-');
  if (code !== receipt.ledger.verification_code) throw new Error(`the verification code ${receipt.ledger.verification_code} is not entry ${named.id}'s (${code})`);
}

function main(argv) {
  const witnesses = [];
  let threshold = 0;
  const rest = [];
  for (let i = 0; i < argv.length; i += 1) {
    if (argv[i] === '--witness') witnesses.push(parseKey(argv[++i] ?? ''));
    else if (argv[i] === '--threshold') threshold = Number(argv[++i]);
    else rest.push(argv[i]);
  }
  if (rest.length !== 2 || !Number.isInteger(threshold) || threshold < 0) {
    process.stderr.write("usage: almoner-verify-ledger proof.json 'name+id+key' [--witness 'name+id+key' ...] [--threshold N]\n");
    return 2;
  }
  const doc = JSON.parse(readFileSync(rest[0], 'utf8'));
  const receipt = doc.ledger !== undefined ? doc : undefined;
  if (receipt !== undefined && (receipt.ledger === null || receipt.ledger.proof === null))
    throw new Error(`receipt ${receipt.number}: its entries are in no signed checkpoint yet`);
  const proof = receipt === undefined ? doc : receipt.ledger.proof;
  const checkpoint = openNote(proof.checkpoint.note, parseKey(rest[1]), witnesses);
  if (checkpoint.cosigned < threshold) throw new Error(`${checkpoint.cosigned} witness cosignatures, fewer than ${threshold}`);
  if (proof.entries.length === 0) throw new Error('the proof names no entry');
  for (const e of proof.entries) {
    const leaf = leafHash(Buffer.from(e.encoded, 'utf8'));
    if (!leaf.equals(Buffer.from(e.leaf_hash, 'base64'))) throw new Error(`entry ${e.id}: its leaf hash is not that of its encoding`);
    const path = e.inclusion_proof.map((h) => Buffer.from(h, 'base64'));
    if (!included(leaf, e.leaf_index, checkpoint.size, path, checkpoint.root)) throw new Error(`entry ${e.id} is not in the checkpoint of ${checkpoint.size}`);
  }
  if (receipt !== undefined) checkReceipt(receipt, proof.entries);
  process.stdout.write(
    `verified: ${receipt === undefined ? `donation ${proof.donation_id}` : `receipt ${receipt.number} (contribution ${receipt.contribution_id}, code ${receipt.ledger.verification_code})`}, ${proof.entries.length} entries in ${checkpoint.origin} at size ${checkpoint.size}${threshold > 0 ? `, cosigned by ${checkpoint.cosigned}` : ''}\n`,
  );
  return 0;
}

try {
  process.exitCode = main(process.argv.slice(2));
} catch (error) {
  process.stderr.write(`NOT verified: ${error.message}\n`);
  process.exitCode = 1;
}
