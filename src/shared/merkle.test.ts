import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createHash } from 'node:crypto';
import { consistencyProof, extendRange, inclusionProof, leafHash, nodeHash, rangeRoot, textLeafHash, treeHash, verifyConsistency, verifyInclusion } from './merkle.ts';

// RFC 6962's test leaves (the Certificate Transparency reference implementation's), and the tree
// hashes of their first 1 and 8.
const LEAVES = ['', '00', '10', '2021', '3031', '40414243', '5051525354555657', '606162636465666768696a6b6c6d6e6f'].map((hex) => leafHash(Buffer.from(hex, 'hex')));

test('tree hashes of the reference leaves; the empty tree is SHA-256 of nothing', () => {
  assert.equal(treeHash(LEAVES, 1).toString('hex'), '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d');
  assert.equal(treeHash(LEAVES, 8).toString('hex'), '5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328');
  assert.equal(treeHash([]).toString('hex'), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
});

test('textLeafHash is the leaf hash of the text\u2019s UTF-8, in hex', () => {
  for (const text of ['', 'a', 'Café 🎉 — 寄付', '\u0000inside']) assert.equal(textLeafHash(text), leafHash(Buffer.from(text, 'utf8')).toString('hex'), JSON.stringify(text));
  assert.equal(textLeafHash(''), '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d', 'the RFC 6962 leaf of nothing');
});

test('nodeHash is SHA-256(0x01 || left || right), each its own buffer, for hashes and for other lengths', () => {
  const of = (...parts: Buffer[]) =>
    createHash('sha256')
      .update(Buffer.concat([Buffer.of(1), ...parts]))
      .digest('hex');
  const [a, b, c] = LEAVES as [Buffer, Buffer, Buffer];
  const ab = nodeHash(a, b);
  const bc = nodeHash(b, c);
  assert.equal(ab.toString('hex'), of(a, b), 'not overwritten by the next');
  assert.equal(bc.toString('hex'), of(b, c));
  assert.equal(nodeHash(Buffer.from('ab'), Buffer.from('c')).toString('hex'), of(Buffer.from('ab'), Buffer.from('c')));
});

const many = Array.from({ length: 37 }, (_, i) => leafHash(Buffer.from(`leaf ${i}`)));

test('every inclusion proof of trees of 1 to 37 leaves verifies, and fails for another leaf, index or root, or a longer path', () => {
  for (let size = 1; size <= many.length; size += 1) {
    const root = treeHash(many, size);
    for (let index = 0; index < size; index += 1) {
      const proof = inclusionProof(many, index, size);
      assert.ok(verifyInclusion(many[index]!, index, size, proof, root), `leaf ${index} of ${size}`);
      assert.equal(verifyInclusion(many[(index + 1) % many.length]!, index, size, proof, root), false);
      if (size > 1) assert.equal(verifyInclusion(many[index]!, (index + 1) % size, size, proof, root), false, `index ${index} of ${size}`);
      // (The size alone is not what a proof binds: a checkpoint signs the size with its root.)
      assert.equal(verifyInclusion(many[index]!, index, size, proof, treeHash(many, Math.min(size + 1, many.length) === size ? size - 1 : size + 1)), false);
      assert.equal(verifyInclusion(many[index]!, index, size, [...proof, root], root), false, 'a longer path');
    }
  }
  assert.equal(verifyInclusion(many[0]!, 3, 3, [], treeHash(many, 3)), false, 'no leaf 3 in a tree of 3');
});

test('every consistency proof between sizes 1 to 37 verifies, and fails for another root or size', () => {
  for (let second = 1; second <= many.length; second += 1) {
    const secondRoot = treeHash(many, second);
    for (let first = 1; first <= second; first += 1) {
      const firstRoot = treeHash(many, first);
      const proof = consistencyProof(many, first, second);
      assert.ok(verifyConsistency(first, second, proof, firstRoot, secondRoot), `${first} -> ${second}`);
      if (first < second) {
        assert.equal(verifyConsistency(first, second, proof, treeHash(many, first + 1), secondRoot), false, `${first} -> ${second}: another first root`);
        assert.equal(verifyConsistency(first, second, proof, firstRoot, treeHash(many, second - 1)), false, `${first} -> ${second}: another second root`);
      }
    }
  }
  // A history rewritten from leaf 5: its tree of 9 is no extension of the tree of 6 first published.
  const rewritten = [...many.slice(0, 5), leafHash(Buffer.from('forged')), ...many.slice(6, 9)];
  assert.equal(verifyConsistency(6, 9, consistencyProof(rewritten, 6, 9), treeHash(many, 6), treeHash(rewritten, 9)), false);
  assert.ok(verifyConsistency(0, 5, [], treeHash([]), treeHash(many, 5)), 'every tree extends the empty one');
});

test('one memo serves the tree hashes of every size of a log, each as computed alone', () => {
  const memo = new Map<string, Buffer>();
  for (let size = 0; size <= many.length; size += 1) assert.deepEqual(treeHash(many, size, memo), treeHash(many, size), `size ${size}`);
  assert.ok(memo.size > 0);
});

test('a compact range extended by any split of the leaves has the tree hash of every size', () => {
  const empty = { size: 0, hashes: [] };
  for (let size = 0; size <= many.length; size += 1) {
    const whole = extendRange(empty, many.slice(0, size));
    assert.deepEqual(rangeRoot(whole), treeHash(many, size), `size ${size}`);
    for (let cut = 0; cut <= size; cut += 7) {
      const two = extendRange(extendRange(empty, many.slice(0, cut)), many.slice(cut, size));
      assert.deepEqual(two, whole, `${cut} then ${size - cut}`);
    }
  }
  assert.throws(() => extendRange({ size: 3, hashes: [] }, []), RangeError);
});

test('sizes and indexes out of range are refused', () => {
  assert.throws(() => inclusionProof(many, 37), RangeError);
  assert.throws(() => treeHash(many, 38), RangeError);
  assert.throws(() => consistencyProof(many, 5, 4), RangeError);
  assert.equal(verifyInclusion(many[0]!, -1, 4, [], treeHash(many, 4)), false);
  assert.equal(verifyConsistency(5, 4, [], treeHash(many, 5), treeHash(many, 4)), false);
});
