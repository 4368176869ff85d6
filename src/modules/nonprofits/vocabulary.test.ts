import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { editDistance, editsAllowed, Vocabulary } from './vocabulary.ts';

function naive(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

test('edit distance agrees with the textbook table, and stops early past the limit', () => {
  fc.assert(
    fc.property(fc.string({ unit: fc.constantFrom('a', 'b', 'c'), maxLength: 8 }), fc.string({ unit: fc.constantFrom('a', 'b', 'c'), maxLength: 8 }), (a, b) => {
      const exact = naive(a, b);
      assert.equal(editDistance(a, b, 10), exact);
      assert.equal(Math.min(editDistance(a, b, 2), 3), Math.min(exact, 3));
    }),
    { numRuns: 3000 },
  );
  assert.equal(editDistance('church', 'chruch', 1), 1); // a transposition is one edit
});

test('typo lookups find exactly the words a scan of the whole vocabulary finds', () => {
  // The trigram index and the cheap bounds (length, letters) only skip words
  // that cannot be near enough: the answer is the scan's.
  const word = fc.string({ unit: fc.constantFrom('a', 'b', 'c', 'd', 'e', '1'), minLength: 1, maxLength: 10 });
  fc.assert(
    fc.property(fc.uniqueArray(word, { minLength: 1, maxLength: 60 }), word, (words, query) => {
      const v = new Vocabulary(words.map((w, i) => ({ word: w, df: (i % 7) + 1 })));
      const max = editsAllowed(query.length);
      const scan = words.filter((w) => w !== query && editDistance(query, w, max) <= max);
      const order = (list: string[]) => [...list].sort();
      assert.deepEqual(order(v.similar(query, 1000).map((e) => e.word)), order(scan));
      for (const e of v.similar(query, 1000)) assert.equal(e.quality, 1 + editDistance(query, e.word, max));
    }),
    { numRuns: 2000 },
  );
});

test('counts and prefix lookups find exactly what a scan of the whole vocabulary finds', () => {
  // The words are held as one string and found by binary search: every word, the first and the
  // last, one that is a prefix of others, and words it does not hold answer as a list would.
  const word = fc.string({ unit: fc.constantFrom('a', 'b', 'c', '1'), minLength: 1, maxLength: 6 });
  fc.assert(
    fc.property(fc.uniqueArray(word, { minLength: 1, maxLength: 40 }), fc.string({ unit: fc.constantFrom('a', 'b', 'c', '1'), maxLength: 4 }), (words, prefix) => {
      const entries = words.map((w, i) => ({ word: w, df: (i % 7) + 1 }));
      const v = new Vocabulary(entries);
      assert.equal(v.size, words.length);
      for (const e of entries) assert.equal(v.dfOf(e.word), e.df);
      if (!words.includes(prefix)) assert.equal(v.dfOf(prefix), 0);
      const scan = entries.filter((e) => e.word.startsWith(prefix) && e.word !== prefix);
      const found = v.prefixed(prefix, 1000);
      assert.deepEqual(found.map((e) => e.word).sort(), scan.map((e) => e.word).sort());
      for (const e of found) assert.equal(e.df, v.dfOf(e.word));
      assert.deepEqual(
        found.map((e) => e.df),
        [...found.map((e) => e.df)].sort((a, b) => b - a),
        'most used first',
      );
    }),
    { numRuns: 2000 },
  );
});

test('the vocabulary expands exact words, prefixes and typos', () => {
  const v = new Vocabulary([
    { word: 'habitat', df: 50 },
    { word: 'humanity', df: 40 },
    { word: 'humane', df: 30 },
    { word: 'human', df: 90 },
    { word: 'foodbank', df: 5 },
    { word: 'foundation', df: 900 },
    { word: 'fund', df: 300 },
    { word: 'church', df: 700 },
  ]);
  assert.deepEqual(
    v.expand('habitat', false).map((e) => [e.word, e.quality]),
    [['habitat', 0]],
  );
  assert.deepEqual(
    v.expand('hum', true).map((e) => e.word),
    ['human', 'humanity', 'humane'],
  );
  assert.deepEqual(
    v.expand('habitta', false).map((e) => [e.word, e.quality]),
    [['habitat', 2]],
  );
  assert.deepEqual(
    v.expand('humanitty', false).map((e) => e.word),
    ['humanity'],
  );
  assert.deepEqual(
    v.expand('foundatoin', false).map((e) => [e.word, e.quality]),
    [['foundation', 2]],
  );
  assert.deepEqual(
    v.expand('chruch', false).map((e) => e.word),
    ['church'],
  );
  assert.deepEqual(v.expand('fnd', false), [], 'no typos allowed in words under 4 letters');
  assert.deepEqual(v.expand('hu', true), [], 'two letters are not a prefix worth expanding');
});

test('a word many names use is taken as typed; a rare or unknown one may be a typo', () => {
  const v = new Vocabulary([
    { word: 'legion', df: 900 },
    { word: 'region', df: 300 },
    { word: 'humanty', df: 2 },
    { word: 'humanity', df: 400 },
  ]);
  assert.deepEqual(
    v.expand('legion', false).map((e) => e.word),
    ['legion'],
  );
  assert.deepEqual(
    v.expand('humanty', false).map((e) => e.word),
    ['humanty', 'humanity'],
  );
  assert.deepEqual(
    v.expand('regoin', false).map((e) => e.word),
    ['region'],
  );
});
