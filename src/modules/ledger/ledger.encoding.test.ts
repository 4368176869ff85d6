import { test } from 'node:test';
import assert from 'node:assert/strict';
import { leafHash } from '../../shared/merkle.ts';
import { entryHash, entryText, type EncodedEntry } from './ledger.encoding.ts';

// Postings given out of order, and a memo outside ASCII (its UTF-8 is what is hashed).
const ENTRY: EncodedEntry = {
  id: 42,
  book: 'live',
  created_at: '2026-12-01T02:00:00.000Z',
  memo: 'Café 🎉 — 寄付',
  donation_id: 7,
  gift_id: null,
  contribution_id: null,
  audit_id: null,
  match_id: null,
  postings: [
    { account_id: 9, amount_cents: 1250 },
    { account_id: 3, amount_cents: -1250 },
  ],
};

test('entryText is the documented array, its postings ordered by account then amount', () => {
  assert.equal(entryText(ENTRY), '["almoner.journal-entry.v1","live",42,"2026-12-01T02:00:00.000Z","Café 🎉 — 寄付",7,null,null,null,null,[[3,-1250],[9,1250]]]');
  assert.deepEqual(ENTRY.postings[0], { account_id: 9, amount_cents: 1250 }, 'the entry given is left as it was');
});

test('entryHash is SHA-256(0x00 || the UTF-8 of the text), as the leaf hash of RFC 6962', () => {
  // Computed outside Node (Python's hashlib over b"\x00" + the text's UTF-8).
  assert.equal(entryHash(ENTRY), '0def26d4b48702b81a2bd380351bfe94bec8a09516d4058f2bddb740bdcff800');
  assert.equal(entryHash(ENTRY), leafHash(Buffer.from(entryText(ENTRY), 'utf8')).toString('hex'));
});

test('an entry with a number beyond the safe integers, or without postings, is not encoded', () => {
  assert.throws(() => entryText({ ...ENTRY, id: 2 ** 53 }), /an encoded number/);
  assert.throws(() => entryText({ ...ENTRY, postings: [{ account_id: 3, amount_cents: 0.5 }] }), /an encoded number/);
  assert.throws(() => entryHash({ ...ENTRY, postings: [] }), /an entry has postings/);
});
