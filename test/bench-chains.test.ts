// The bench's chains-off arm (`npm run bench -- --only chains`, issue 61's measure): its patches
// still match the code they switch off, the hook applies them as the modules load, and the
// journal's waiting (SQLite's trigger, PostgreSQL's txid default) is dropped and put back as it
// was defined, on both engines.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { sql } from 'kysely';
import { engines, onFreshDatabase } from './harness.ts';
import { migrate } from '../src/db/migrate.ts';
import { PATCHES, patched } from '../bench/chains-off.patches.ts';
import { setWaitingTrigger } from '../bench/waiting-trigger.ts';

const ROOT = new URL('..', import.meta.url).pathname;

test('each chains-off patch finds its text once in the code, and a patch whose text is gone fails loudly', () => {
  for (const patch of PATCHES) {
    const source = readFileSync(`${ROOT}${patch.file.slice(1)}`, 'utf8');
    const out = patched(source, patch);
    assert.ok(out.includes(patch.to) && !out.includes(patch.from), patch.file);
  }
  assert.throws(() => patched('nothing here', PATCHES[0] as (typeof PATCHES)[0]), /is not in .* once/);
  const twice = `${(PATCHES[0] as (typeof PATCHES)[0]).from}\n${(PATCHES[0] as (typeof PATCHES)[0]).from}`;
  assert.throws(() => patched(twice, PATCHES[0] as (typeof PATCHES)[0]), /is not in .* once/);
});

test('the hook patches the modules as they load: the log tail is never opened, no entry is hashed', () => {
  const script = `const tail = await import('./src/modules/ledger/ledger.tail.ts');
    const store = await import('./src/modules/ledger/ledger.store.ts');
    const [insert] = store.entryStatements([{ id: 7, cause: { book: 'live', memo: 'm', audit_id: 1 }, movements: [{ from_account_id: 1, to_account_id: 2, amount_cents: 5 }] }], '2026-12-01T00:00:00.000Z', undefined);
    const params = []; insert.text('sqlite', params);
    console.log(JSON.stringify({ open: tail.LogTail.open.toString(), hash: params.at(-1) }));`;
  const run = (flags: string[]) =>
    JSON.parse(execFileSync(process.execPath, [...flags, '--input-type=module', '-e', script], { cwd: ROOT }).toString()) as { open: string; hash: unknown };
  const on = run([]);
  assert.match(on.open, /engine !== 'sqlite'/);
  assert.match(String(on.hash), /^[0-9a-f]{64}$/, 'with the chains on, the entry row carries its hash');
  const off = run(['--import', './bench/chains-off.ts']);
  assert.doesNotMatch(off.open, /engine !== 'sqlite'/);
  assert.equal(off.hash, null, 'with the chains off, no hash');
});

for (const { name: engine } of engines()) {
  describe(`the bench's waiting trigger on ${engine}`, () => {
    test('dropped for the chains-off arm, its definition kept, and put back as it was', async () => {
      await onFreshDatabase(engine, async (handle) => {
        const db = handle.db;
        await migrate(handle);
        const waitingAfterInsert = async (memo: string) => {
          await sql`insert into journal_entries (memo, created_at, entry_hash) values (${memo}, '2026-12-01T00:00:00Z', ${'a'.repeat(64)})`.execute(db);
          const waiting =
            engine === 'sqlite'
              ? sql<{ n: number }>`select count(*) as n from ledger_waiting w join journal_entries j on j.id = w.entry_id where j.memo = ${memo}`
              : sql<{ n: number }>`select count(*) as n from journal_entries j where j.txid is not null and j.memo = ${memo}`;
          return Number((await waiting.execute(db)).rows[0]?.n);
        };
        await setWaitingTrigger(db, engine, true);
        assert.equal(await waitingAfterInsert('before'), 1, 'left as it is when it is there');
        await setWaitingTrigger(db, engine, false);
        await setWaitingTrigger(db, engine, false);
        assert.equal(await waitingAfterInsert('off'), 0, 'dropped (twice: the second finds nothing to drop, and keeps the definition)');
        await setWaitingTrigger(db, engine, true);
        assert.equal(await waitingAfterInsert('on again'), 1, 'put back');
      });
    });
  });
}
