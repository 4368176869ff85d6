// The importer's reading thread: a file's header, then its rows in file
// order over several chunks, the bytes read growing to the file's size; a
// file that cannot be read throws after what was read; stopping early ends it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readBmfRows, type ReadChunk, type ReadRow } from './bmf-reader.ts';

const HEADER = 'EIN,NAME,CITY,STATE,ZIP,DEDUCTIBILITY,STATUS,NTEE_CD,INCOME_AMT';

function csv(rows: number): string {
  const lines = [HEADER];
  for (let i = 0; i < rows; i++) {
    const ein = String(100_000_000 + i);
    // Every 1,000th row is broken (too few fields); every 1,000th from 500 has no name.
    if (i % 1000 === 999) lines.push(`${ein},SHORT ROW`);
    else lines.push(`${ein},${i % 1000 === 500 ? '' : `"FRIENDS OF, THE LIBRARY ${i}"`},BURLINGTON,VT,05401,1,01,B70,${i}`);
  }
  return `${lines.join('\r\n')}\r\n`;
}

async function readAll(file: string): Promise<{ chunks: ReadChunk[]; error?: Error }> {
  const chunks: ReadChunk[] = [];
  try {
    for await (const chunk of readBmfRows(file, new Map([['05401', { latitude: 44.48, longitude: -73.21 }]]))) chunks.push(chunk);
    return { chunks };
  } catch (error) {
    return { chunks, error: error as Error };
  }
}

test('a file is read on the worker: its header first, then every row in order, as rows or rejections, in chunks', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'almoner-reader-'));
  try {
    const file = join(dir, 'eo_vt.csv.gz');
    writeFileSync(file, gzipSync(csv(5_000)));
    const { chunks, error } = await readAll(file);
    assert.equal(error, undefined);
    assert.deepEqual(chunks[0], { kind: 'header', header: HEADER.split(',') });
    const rowChunks = chunks.slice(1).filter((c) => c.kind === 'rows');
    assert.equal(rowChunks.length, chunks.length - 1);
    assert.ok(rowChunks.length >= 3, 'several chunks');
    const rows: ReadRow[] = rowChunks.flatMap((c) => c.rows);
    assert.deepEqual(
      rows.map((r) => r.line),
      Array.from({ length: 5_000 }, (_, i) => i + 2),
    );
    assert.deepEqual(rows[999], { line: 1001, reject: '2 fields where the header has 9' });
    assert.deepEqual(rows[500], { line: 502, reject: 'NAME is empty' });
    const first = rows[0];
    assert.ok(first !== undefined && 'input' in first);
    assert.equal(first.input.name, 'Friends Of, the Library 0');
    assert.equal(first.input.latitude, 44.48);
    assert.equal(first.input.eligible, 1);
    const bytes = rowChunks.map((c) => c.bytes);
    assert.deepEqual(
      bytes,
      [...bytes].sort((a, b) => a - b),
      'bytes read only grow',
    );
    assert.equal(bytes.at(-1), statSync(file).size);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a truncated file: every row read arrives, then the error', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'almoner-reader-'));
  try {
    const whole = gzipSync(csv(20_000));
    const file = join(dir, 'eo_vt.csv.gz');
    writeFileSync(file, whole.subarray(0, Math.floor(whole.length / 2)));
    const { chunks, error } = await readAll(file);
    assert.match(error?.message ?? '', /unexpected end of file/);
    const rows = chunks.flatMap((c) => (c.kind === 'rows' ? c.rows : []));
    assert.ok(rows.length > 1_000 && rows.length < 20_000, `${rows.length} rows read before the end`);
    assert.deepEqual(
      rows.map((r) => r.line),
      Array.from({ length: rows.length }, (_, i) => i + 2),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a missing file throws with its path; stopping after the header ends the worker', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'almoner-reader-'));
  try {
    const missing = join(dir, 'nothing.csv');
    const { chunks, error } = await readAll(missing);
    assert.deepEqual(chunks, []);
    assert.match(error?.message ?? '', /ENOENT.*nothing\.csv/);
    const file = join(dir, 'eo_vt.csv');
    writeFileSync(file, csv(50_000));
    let seen = 0;
    for await (const chunk of readBmfRows(file, new Map())) {
      assert.equal(chunk.kind, 'header');
      seen += 1;
      break;
    }
    assert.equal(seen, 1);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
