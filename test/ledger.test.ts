// A ledger anyone can verify (docs/rules.md §26), on both engines: the journal's log, signed
// checkpoints, a witness's cosignature, a donation's proof checked three ways (the server's own
// code, the client's standalone verifier on the machine's default Node, `almoner verify`), and
// tampering of every kind caught by `almoner check` or by verifying against saved checkpoints.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { engines, openEnv, makeUser, fund, makeNonProfit, call, withoutForeignKeys, assertLedgerBalanced, BIN, type TestEnv, type TestUser } from './harness.ts';
import { pdfText } from './pdf.ts';
import { sql } from 'kysely';
import { checkpoint, exportJournal, logOrigin, sequenceAll, verifyExport, acceptCosignatures, type ExportedLeaf } from '../src/modules/ledger/index.ts';
import { runCheck } from '../src/modules/check/index.ts';
import { leafHash, verifyConsistency, verifyInclusion } from '../src/shared/merkle.ts';
import { cosign, noteKey, parseCheckpoint, parseVerifierKey, splitNote, verifierKeyText, verifyNote, NOTE_KEY_TYPES } from '../src/shared/signed-note.ts';
import { proofProblems } from '../src/cli/ledger.ts';

const EIN = '261544963';
const dir = mkdtempSync(join(tmpdir(), 'almoner-ledger-'));
const witness = noteKey('witness.example', generateKeyPairSync('ed25519').privateKey, NOTE_KEY_TYPES.witness);
const WITNESS_KEY = verifierKeyText(witness.name, witness.publicKey, NOTE_KEY_TYPES.witness);

async function ledgerFailures(env: TestEnv): Promise<string[]> {
  return (await runCheck(env.deps)).find((r) => r.name.startsWith('every journal entry matches its hash'))?.failures ?? ['the check is missing'];
}

/** The log's state as a verifier saved it: its checkpoints and the log key. */
async function saved(env: TestEnv, user: TestUser) {
  const key = (await call(env.app, 'GET', '/v1/ledger/key', { key: user.key })).body;
  const page = (await call(env.app, 'GET', '/v1/ledger/checkpoints', { key: user.key })).body;
  return { key: key.verifier_key as string, origin: key.origin as string, checkpoints: page.items as Array<{ size: number; note: string }> };
}

async function exported(env: TestEnv): Promise<ExportedLeaf[]> {
  const lines: ExportedLeaf[] = [];
  await exportJournal(env.deps, 'live', (l) => lines.push(l));
  return lines;
}

for (const { name: engine } of engines()) {
  describe(`the verifiable ledger on ${engine}`, () => {
    let env: TestEnv;
    let donor: TestUser;
    let other: TestUser;
    const donate = async (user: TestUser, amount: number, headers: Record<string, string> = {}) => {
      const res = await call(env.app, 'POST', '/v1/donations', { key: user.key, body: { ein: EIN, amount }, headers });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      return res.body.id as number;
    };

    before(async () => {
      env = await openEnv(engine, { ledger: { signingKey: '', keyName: '', checkpointEntries: 1000, checkpointIntervalMs: 60_000, witnesses: [WITNESS_KEY] } });
      donor = await makeUser(env.deps);
      other = await makeUser(env.deps);
      await makeNonProfit(env.deps, { ein: EIN, name: 'Khan Academy' });
      await fund(env.deps, donor, 1_000_00);
      await fund(env.deps, other, 1_000_00);
    });
    after(async () => env.close());

    test("a donation is provable once a signed checkpoint holds its entries; before, 409 proof_not_ready; another's is 404", async () => {
      const id = await donate(donor, 25, { 'idempotency-key': 'ledger-1' });
      const early = await call(env.app, 'GET', `/v1/donations/${id}/proof`, { key: donor.key });
      assert.deepEqual([early.status, early.body.code], [409, 'proof_not_ready']);
      const none = await call(env.app, 'GET', '/v1/ledger/checkpoints/latest', { key: donor.key });
      assert.deepEqual([none.status, none.body.code], [404, 'checkpoint_not_found']);
      const made = await checkpoint(env.deps, 'live', { force: true });
      assert.ok(made !== undefined && made.size >= 2, 'the funding and the donation are in the log');

      const { key, origin, checkpoints } = await saved(env, donor);
      assert.equal(origin, await logOrigin(env.deps, 'live'));
      const latest = (await call(env.app, 'GET', '/v1/ledger/checkpoints/latest', { key: donor.key })).body;
      assert.deepEqual(checkpoints[0], latest);
      assert.deepEqual(verifyNote(latest.note, [parseVerifierKey(key)]).signedBy, [parseVerifierKey(key).name]);
      assert.equal(parseCheckpoint(latest.note).size, latest.size);

      const proof = (await call(env.app, 'GET', `/v1/donations/${id}/proof`, { key: donor.key })).body;
      assert.equal(proof.entries.length, 1, 'the donation made one entry: its hold');
      const [entry] = proof.entries;
      assert.match(entry.encoded, new RegExp(`^\\["almoner.journal-entry.v1","live",${entry.id},`));
      const leaf = leafHash(Buffer.from(entry.encoded, 'utf8'));
      assert.equal(leaf.toString('base64'), entry.leaf_hash);
      const root = Buffer.from(latest.root_hash, 'base64');
      assert.ok(
        verifyInclusion(
          leaf,
          entry.leaf_index,
          latest.size,
          entry.inclusion_proof.map((h: string) => Buffer.from(h, 'base64')),
          root,
        ),
      );
      assert.deepEqual(proofProblems(proof, key, [], 0), []);

      // The client's standalone verifier, on this machine's default Node, with nothing but its crypto.
      const file = join(dir, `proof-${engine}.json`);
      writeFileSync(file, JSON.stringify(proof));
      const ok = spawnSync('node', ['packages/client/bin/verify-ledger.js', file, key], { encoding: 'utf8', env: { PATH: '/usr/bin:/bin' } });
      assert.equal(ok.status, 0, ok.stderr);
      assert.match(ok.stdout, /^verified: donation \d+, 1 entries/);
      const forged = join(dir, `forged-${engine}.json`);
      writeFileSync(forged, JSON.stringify({ ...proof, entries: [{ ...entry, encoded: entry.encoded.replace(/-2500\]/, '-25000]').replace(/,2500\]/, ',25000]') }] }));
      const refused = spawnSync('node', ['packages/client/bin/verify-ledger.js', forged, key], { encoding: 'utf8', env: { PATH: '/usr/bin:/bin' } });
      assert.deepEqual([refused.status, /NOT verified: entry \d+: its leaf hash/.test(refused.stderr)], [1, true], refused.stderr);

      const stranger = await call(env.app, 'GET', `/v1/donations/${id}/proof`, { key: other.key });
      assert.deepEqual([stranger.status, stranger.body.code], [404, 'donation_not_found']);
      await assertLedgerBalanced(env.deps);
    });

    test('checkpoints grow consistently; a witness cosigns one; the threshold counts it', async () => {
      const first = (await checkpoint(env.deps, 'live', { force: true }))!;
      await donate(donor, 12);
      await donate(other, 13);
      const second = (await checkpoint(env.deps, 'live', { force: true }))!;
      assert.ok(second.size > first.size);
      assert.ok(second.compact_range !== null, 'the checkpoint keeps its compact range, which the next one extends');
      const consistency = (await call(env.app, 'GET', `/v1/ledger/consistency?first=${first.size}&second=${second.size}`, { key: donor.key })).body;
      const roots = [first, second].map((c) => Buffer.from(c.root_hash, 'hex'));
      assert.ok(
        verifyConsistency(
          first.size,
          second.size,
          consistency.proof.map((h: string) => Buffer.from(h, 'base64')),
          roots[0]!,
          roots[1]!,
        ),
      );
      const bad = await call(env.app, 'GET', `/v1/ledger/consistency?first=${second.size}&second=${first.size}`, { key: donor.key });
      assert.deepEqual([bad.status, bad.body.code], [422, 'validation_failed']);
      const missing = await call(env.app, 'GET', `/v1/ledger/consistency?first=1&second=${second.size + 50}`, { key: donor.key });
      assert.deepEqual([missing.status, missing.body.code], [404, 'checkpoint_not_found']);

      // A witness checks the consistency itself and cosigns; a stranger's line is not kept.
      const { text } = splitNote(second.note);
      const stranger = noteKey('stranger.example', generateKeyPairSync('ed25519').privateKey, NOTE_KEY_TYPES.witness);
      assert.deepEqual(await acceptCosignatures(env.deps, 'live', second.size, cosign(text, stranger, 1_800_000_000)), []);
      assert.deepEqual(await acceptCosignatures(env.deps, 'live', second.size, cosign(text, witness, 1_800_000_000)), ['witness.example']);
      const shown = (await call(env.app, 'GET', `/v1/ledger/checkpoints/${second.size}`, { key: donor.key })).body;
      assert.deepEqual(shown.witnesses, ['witness.example']);
      const { key } = await saved(env, donor);
      const opened = verifyNote(shown.note, [parseVerifierKey(key), parseVerifierKey(WITNESS_KEY)]);
      assert.deepEqual(opened.cosignedBy, [{ name: 'witness.example', time: 1_800_000_000 }]);
      const id = await donate(donor, 14);
      await checkpoint(env.deps, 'live', { force: true });
      const proof = (await call(env.app, 'GET', `/v1/donations/${id}/proof`, { key: donor.key })).body;
      assert.deepEqual(proofProblems(proof, key, [WITNESS_KEY], 1), ['0 witness cosignatures, fewer than 1'], 'the newest checkpoint is not cosigned yet');
      await acceptCosignatures(env.deps, 'live', proof.checkpoint.size, cosign(splitNote(proof.checkpoint.note).text, witness, 1_800_000_100));
      const again = (await call(env.app, 'GET', `/v1/donations/${id}/proof`, { key: donor.key })).body;
      assert.deepEqual(proofProblems(again, key, [WITNESS_KEY], 1), []);
      await assertLedgerBalanced(env.deps);
    });

    test("a checkpoint is the log's tree whether its leaves are the sequencer's run just before or read back", async () => {
      await checkpoint(env.deps, 'live', { force: true });
      // Placed by a run of its own, then checkpointed by another: the leaves are read back.
      await donate(donor, 15);
      await sequenceAll(env.deps, 'live');
      await donate(other, 16);
      const read = (await checkpoint(env.deps, 'live', { force: true }))!;
      // Placed by the checkpoint's own run, all of them since the last: kept from it.
      await donate(donor, 17);
      await donate(other, 18);
      const kept = (await checkpoint(env.deps, 'live', { force: true }))!;
      assert.ok(kept.size > read.size);
      // `check` hashes every checkpoint's tree from the log itself.
      assert.deepEqual(await ledgerFailures(env), []);
    });

    test('the whole exported log verifies against the checkpoints a verifier saved', async () => {
      const { key, origin, checkpoints } = await saved(env, donor);
      assert.ok(checkpoints.length >= 3);
      assert.deepEqual(verifyExport(await exported(env), checkpoints, key, origin), []);
      assert.deepEqual(
        verifyExport(await exported(env), checkpoints, key, origin, { keys: [WITNESS_KEY], threshold: 1 }).length,
        checkpoints.length - 2,
        'all but the two cosigned fall short of the threshold',
      );
    });
    test("a receipt prints its entry's verification code at once, carries the proof once a checkpoint holds it, and verify checks both", async () => {
      const mine = (await call(env.app, 'GET', '/v1/contributions', { key: donor.key })).body.items as Array<{ id: number }>;
      const contributionId = mine[0]!.id;
      const fresh = await makeUser(env.deps);
      await fund(env.deps, fresh, 77_00);
      const freshId = (await call(env.app, 'GET', '/v1/contributions', { key: fresh.key })).body.items[0].id as number;
      const waiting = (await call(env.app, 'GET', `/v1/contributions/${freshId}/receipt`, { key: fresh.key })).body;
      assert.match(waiting.ledger.verification_code, /^[0-9A-F]{4}(-[0-9A-F]{4}){3}$/);
      // In no checkpoint yet: the code, no proof; a place in the log already where the writer gives it (SQLite).
      assert.equal(waiting.ledger.proof, null);
      assert.equal(waiting.ledger.leaf_index === null, engine === 'postgres', `leaf index ${waiting.ledger.leaf_index} on ${engine}`);
      const pdf = await env.app.inject({ method: 'GET', url: `/v1/contributions/${freshId}/receipt`, headers: { 'x-api-key': fresh.key, accept: 'application/pdf' } });
      assert.match(pdfText(pdf.rawPayload), new RegExp(`Ledger verification code: ${waiting.ledger.verification_code}`));

      await checkpoint(env.deps, 'live', { force: true });
      const receipt = (await call(env.app, 'GET', `/v1/contributions/${contributionId}/receipt`, { key: donor.key })).body;
      const proof = receipt.ledger.proof;
      assert.ok(proof !== null && proof.entries.some((e: { id: number }) => e.id === receipt.ledger.entry_id));
      assert.equal(receipt.ledger.leaf_index, proof.entries.find((e: { id: number }) => e.id === receipt.ledger.entry_id).leaf_index);
      const { key, origin, checkpoints } = await saved(env, donor);
      const file = join(dir, `receipt-${engine}.json`);
      writeFileSync(file, JSON.stringify(receipt));
      const script = spawnSync('node', ['packages/client/bin/verify-ledger.js', file, key], { encoding: 'utf8', env: { PATH: '/usr/bin:/bin' } });
      assert.equal(script.status, 0, script.stderr);
      assert.match(script.stdout, new RegExp(`^verified: receipt ${receipt.number} \\(contribution ${contributionId}, code ${receipt.ledger.verification_code}\\)`));
      const cli = spawnSync(process.execPath, [BIN, 'verify', file, '--key', key], { encoding: 'utf8' });
      assert.deepEqual([cli.status, cli.stdout.startsWith(`verified: receipt ${receipt.number}`)], [0, true], cli.stdout + cli.stderr);

      // Another contribution's entry passed off as this receipt's: both refuse it.
      const other = (await call(env.app, 'GET', `/v1/contributions/${freshId}/receipt`, { key: fresh.key })).body;
      const swapped = join(dir, `swapped-${engine}.json`);
      writeFileSync(swapped, JSON.stringify({ ...receipt, ledger: other.ledger }));
      const refused = spawnSync('node', ['packages/client/bin/verify-ledger.js', swapped, key], { encoding: 'utf8', env: { PATH: '/usr/bin:/bin' } });
      assert.deepEqual([refused.status, /NOT verified: entry \d+ is not of contribution/.test(refused.stderr)], [1, true], refused.stderr);
      const cliRefused = spawnSync(process.execPath, [BIN, 'verify', swapped, '--key', key], { encoding: 'utf8' });
      assert.deepEqual([cliRefused.status, /is not of contribution/.test(cliRefused.stdout)], [1, true], cliRefused.stdout);

      // The code alone, against the whole exported log and the saved checkpoints.
      const log = join(dir, `log-${engine}.jsonl`);
      writeFileSync(log, (await exported(env)).map((l) => `${JSON.stringify(l)}\n`).join(''));
      const saves = join(dir, `checkpoints-${engine}.json`);
      writeFileSync(saves, JSON.stringify(checkpoints));
      const byCode = (code: string) =>
        spawnSync(process.execPath, [BIN, 'verify', '--export', log, '--checkpoints', saves, '--origin', origin, '--key', key, '--code', code], { encoding: 'utf8' });
      const found = byCode(receipt.ledger.verification_code);
      assert.equal(found.status, 0, found.stdout + found.stderr);
      assert.match(
        found.stdout,
        new RegExp(`code ${receipt.ledger.verification_code} is leaf ${receipt.ledger.leaf_index}: \\["almoner.journal-entry.v1","live",${receipt.ledger.entry_id},`),
      );
      const unknown = byCode('0000-0000-0000-0000');
      assert.deepEqual([unknown.status, /no entry of the log has the verification code 0000-0000-0000-0000/.test(unknown.stdout)], [1, true], unknown.stdout);
      const malformed = byCode('not-a-code');
      assert.deepEqual([malformed.status, /--code is a receipt verification code/.test(malformed.stderr)], [2, true], malformed.stderr);
    });
  });

  describe(`tampering with the ledger is caught on ${engine}`, () => {
    /** A fresh platform with a few donations, a checkpoint, and what a verifier saved of it. */
    async function ledgerWithHistory() {
      const env = await openEnv(engine);
      const donor = await makeUser(env.deps);
      await makeNonProfit(env.deps, { ein: EIN, name: 'Khan Academy' });
      await fund(env.deps, donor, 500_00);
      for (const amount of [10, 11, 12, 13]) assert.equal((await call(env.app, 'POST', '/v1/donations', { key: donor.key, body: { ein: EIN, amount } })).status, 201);
      await checkpoint(env.deps, 'live', { force: true });
      const verifier = await saved(env, donor);
      assert.deepEqual(await ledgerFailures(env), []);
      const entries = await env.deps.db.selectFrom('ledger_places').select(['entry_id', 'leaf']).where('book', '=', 'live').orderBy('leaf').execute();
      return { env, verifier, entries: entries.map((e) => ({ id: Number(e.entry_id), seq: Number(e.leaf) })) };
    }
    const verified = async (env: TestEnv, v: Awaited<ReturnType<typeof saved>>) => verifyExport(await exported(env), v.checkpoints, v.key, v.origin);

    test('an amount edited: check names the entry; the saved checkpoint no longer holds', async () => {
      const { env, verifier, entries } = await ledgerWithHistory();
      const target = entries[2]!;
      await env.deps.db
        .updateTable('postings')
        .set((eb) => ({ amount_cents: eb('amount_cents', '*', 10) }))
        .where('entry_id', '=', target.id)
        .execute();
      assert.match((await ledgerFailures(env))[0] ?? '', new RegExp(`^journal entry ${target.id} \\(live leaf ${target.seq}\\): its content no longer matches`));
      assert.match((await verified(env, verifier)).join('\n'), /^the chain breaks at journal entry \d+ \(leaf 2\)/);
      await env.close();
    });

    test('an entry deleted: check names where the gap is', async () => {
      const { env, verifier, entries } = await ledgerWithHistory();
      const target = entries[1]!;
      await withoutForeignKeys(env, async (db) => {
        await db.deleteFrom('postings').where('entry_id', '=', target.id).execute();
        await db.deleteFrom('journal_entries').where('id', '=', target.id).execute();
      });
      const failures = (await ledgerFailures(env)).join('\n');
      assert.match(failures, new RegExp(`live: journal entry ${entries[2]!.id} is at leaf 2 where leaf 1 comes next`));
      assert.match((await verified(env, verifier)).join('\n'), /is at leaf 2 where leaf 1 comes next/);
      await env.close();
    });

    /**
     * A new entry after the checkpoint (placed by SQLite's writer, waiting on PostgreSQL), taken out
     * of both (on PostgreSQL an entry without a txid waits for nothing): its id.
     */
    async function newestTakenOut(env: Awaited<ReturnType<typeof ledgerWithHistory>>['env']): Promise<number> {
      const donor = await makeUser(env.deps);
      await fund(env.deps, donor, 100_00);
      const target = Number((await env.deps.db.selectFrom('journal_entries').select('id').orderBy('id', 'desc').limit(1).executeTakeFirstOrThrow()).id);
      await env.deps.db.deleteFrom('ledger_places').where('entry_id', '=', target).execute();
      await env.deps.db.deleteFrom('ledger_waiting').where('entry_id', '=', target).execute();
      if (env.engine === 'postgres') await sql`update journal_entries set txid = null where id = ${target}`.execute(env.deps.db);
      return target;
    }

    /**
     * The entries `ids` made to wait for their place again, in id order, as a forger with the
     * database's keys would: named in the waiting (SQLite, with `hash` as the hash they wait with),
     * or given a transaction id above the log's last place (PostgreSQL, `hash` written on the row:
     * the sequencer reads it there).
     */
    async function waitAgain(env: Awaited<ReturnType<typeof ledgerWithHistory>>['env'], ids: readonly number[], hash?: string): Promise<void> {
      if (env.engine === 'sqlite') {
        await env.deps.db
          .insertInto('ledger_waiting')
          .values(ids.map((id) => ({ book: 'live' as const, entry_id: id, ...(hash === undefined ? {} : { entry_hash: hash }) })))
          .execute();
        return;
      }
      await sql`update journal_entries set txid = pg_current_xact_id() where id in (${sql.join(ids)})`.execute(env.deps.db);
      if (hash !== undefined) await env.deps.db.updateTable('journal_entries').set({ entry_hash: hash }).where('id', 'in', ids).execute();
    }

    test('an entry neither in the log nor waiting for its place: check names it (it would never enter the log)', async () => {
      const { env } = await ledgerWithHistory();
      const target = await newestTakenOut(env);
      assert.deepEqual(await ledgerFailures(env), [`journal entry ${target} (live): neither in the log nor waiting for its place`]);
      await env.close();
    });

    test('an entry waiting with a hash not its own: the sequencer chains it, check names where the chain breaks', async () => {
      const { env } = await ledgerWithHistory();
      // The newest entry waits again, under a forged copy of its hash.
      const target = await newestTakenOut(env);
      await waitAgain(env, [target], 'f'.repeat(64));
      await sequenceAll(env.deps, 'live');
      assert.match((await ledgerFailures(env)).join('\n'), new RegExp(`the chain breaks at journal entry ${target} \\(leaf \\d+\\)`));
      await env.close();
    });

    test('two entries reordered: the chain breaks at the first moved', async () => {
      const { env, entries } = await ledgerWithHistory();
      const [a, b] = [entries[1]!, entries[2]!];
      // Each takes the other's place (an entry has one place: the first moved aside for a moment).
      const move = (entry: number, to: number) => env.deps.db.updateTable('ledger_places').set({ entry_id: to }).where('entry_id', '=', entry).execute();
      await move(a.id, -1);
      await move(b.id, a.id);
      await move(-1, b.id);
      assert.match((await ledgerFailures(env)).join('\n'), new RegExp(`live: the chain breaks at journal entry ${b.id} \\(leaf ${a.seq}\\)`));
      await env.close();
    });

    test('history rewritten from a point with a fresh, consistent chain: the saved checkpoint catches it, naming where', async () => {
      const { env, verifier, entries } = await ledgerWithHistory();
      const from = entries[3]!;
      await env.deps.db
        .updateTable('postings')
        .set((eb) => ({ amount_cents: eb('amount_cents', '*', 2) }))
        .where('entry_id', '=', from.id)
        .execute();
      // The forger recomputes every hash and chain hash from that entry on (and has no other way in).
      const rewritten = entries.filter((e) => e.seq >= from.seq).map((e) => e.id);
      await env.deps.db.deleteFrom('ledger_places').where('entry_id', 'in', rewritten).execute();
      await env.deps.db.updateTable('journal_entries').set({ entry_hash: null }).where('id', 'in', rewritten).execute();
      await waitAgain(env, rewritten);
      await sequenceAll(env.deps, 'live');
      const failures = await ledgerFailures(env);
      assert.match(
        failures.join('\n'),
        new RegExp(`checkpoint ${verifier.checkpoints[0]!.size}: its root is not the tree of the log's first \\d+ entries: the log was changed at a leaf from 0 to`),
      );
      // Against what the verifier saved, even were the database's checkpoints re-signed.
      assert.match((await verified(env, verifier)).join('\n'), /its root is not the tree/);
      await env.close();
    });
  });
}

test('the standalone verifier refuses bad arguments with its usage', () => {
  const res = spawnSync('node', ['packages/client/bin/verify-ledger.js'], { encoding: 'utf8' });
  assert.equal(res.status, 2);
  assert.match(res.stderr, /^usage: almoner-verify-ledger/);
  assert.ok(execFileSync('node', ['--version'], { encoding: 'utf8' }).startsWith('v'));
});
