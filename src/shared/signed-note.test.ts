import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createPrivateKey, generateKeyPairSync } from 'node:crypto';
import { checkpointText, cosign, noteKey, parseCheckpoint, parseVerifierKey, signNote, verifierKeyText, verifyNote, NOTE_KEY_TYPES } from './signed-note.ts';

// The example of the reference implementation (golang.org/x/mod/sumdb/note): its key, text and note.
const VKEY = 'PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW';
const SEED = Buffer.from('AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz', 'base64').subarray(1);
const TEXT = "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n";
const NOTE = `${TEXT}\n\u2014 PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n`;

const fromSeed = (seed: Buffer) => createPrivateKey({ key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]), format: 'der', type: 'pkcs8' });

test('the reference example: its key id, verifier key and signed note, byte for byte', () => {
  const key = noteKey('PeterNeumann', fromSeed(SEED));
  assert.equal(verifierKeyText(key.name, key.publicKey), VKEY);
  assert.equal(signNote(TEXT, key), NOTE);
  assert.deepEqual(verifyNote(NOTE, [parseVerifierKey(VKEY)]).signedBy, ['PeterNeumann']);
  assert.throws(() => verifyNote(NOTE.replace('cryptography', 'cryptographY'), [parseVerifierKey(VKEY)]), /does not verify/);
});

test('verifier keys: a wrong id, a short key or an unknown type is refused', () => {
  assert.throws(() => parseVerifierKey(VKEY.replace('c74f20a3', 'c74f20a4')), /is not its key's/);
  assert.throws(() => parseVerifierKey('PeterNeumann+c74f20a3+ARpc2QcU'), /32 bytes/);
  assert.throws(() => parseVerifierKey('a b+00000000+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW'), /name/);
});

test("checkpoints: signed, cosigned by a witness at a time, read back; another key's lines are ignored", () => {
  const log = noteKey('almoner.test/ledger', generateKeyPairSync('ed25519').privateKey);
  const witness = noteKey('witness.example', generateKeyPairSync('ed25519').privateKey, NOTE_KEY_TYPES.witness);
  const stranger = noteKey('stranger.example', generateKeyPairSync('ed25519').privateKey);
  const text = checkpointText('almoner.test/ledger/live', 7, Buffer.alloc(32, 9));
  const note = signNote(text, log) + cosign(text, witness, 1_790_000_000) + signNote(text, stranger).slice(text.length + 1);
  const keys = [parseVerifierKey(verifierKeyText(log.name, log.publicKey)), parseVerifierKey(verifierKeyText(witness.name, witness.publicKey, NOTE_KEY_TYPES.witness))];
  const opened = verifyNote(note, keys);
  assert.deepEqual([opened.signedBy, opened.cosignedBy], [['almoner.test/ledger'], [{ name: 'witness.example', time: 1_790_000_000 }]]);
  assert.deepEqual(parseCheckpoint(opened.text), { origin: 'almoner.test/ledger/live', size: 7, root: Buffer.alloc(32, 9) });
  // A cosignature of another checkpoint does not verify.
  assert.throws(
    () => verifyNote(signNote(checkpointText('almoner.test/ledger/live', 8, Buffer.alloc(32, 9)), log) + cosign(text, witness, 5), keys),
    /cosignature of witness.example/,
  );
  assert.throws(() => parseCheckpoint('x\n07\nAAAA\n'), /not a checkpoint/);
});
