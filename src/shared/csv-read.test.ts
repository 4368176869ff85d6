import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readNamedCsv } from './csv-read.ts';

test('readNamedCsv: columns by name in any order and case, rows by line; a bad, empty or short file is one problem', () => {
  assert.deepEqual(readNamedCsv('\uFEFFB,Extra,a\n2,x,1\n\n4,y,3\n', ['a', 'b'], 'nothing'), {
    ok: true,
    rows: [
      { line: 2, values: { a: '1', b: '2' } },
      { line: 3, values: { a: '3', b: '4' } },
    ],
  });
  assert.deepEqual(readNamedCsv('a,b\n', ['a', 'b'], 'nothing listed'), { ok: false, problems: [{ line: 1, reason: 'nothing listed' }] });
  assert.deepEqual(readNamedCsv('a\n1\n', ['a', 'b'], 'nothing'), { ok: false, problems: [{ line: 1, reason: 'the header lacks b' }] });
  const broken = readNamedCsv('a,b\n1,"2\n', ['a', 'b'], 'nothing');
  assert.equal(broken.ok, false);
});
