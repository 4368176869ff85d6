// The operator's money commands as an operator runs them, in processes of their own, on both
// engines: a value received wrongly corrected from the CLI (docs/rules.md §13), and a payment run
// opened and submitted (§17), each long step saying on stderr what it does and how long it took.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { linkSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call, engines, fund, makeNonProfit, makeUser, openEnv, runCli, type TestEnv, type TestUser, assertLedgerBalanced } from './harness.ts';
import { createAdminToken } from '../src/modules/admin/index.ts';
import { addDays, bankingDayFrom } from '../src/modules/payments/index.ts';

for (const { name: engine } of engines()) {
  describe(`the money commands on ${engine}`, () => {
    let env: TestEnv;
    let donor: TestUser;
    let operator: string;
    const admin = (method: string, url: string, body?: unknown) =>
      call(env.app, method, `/admin/v1${url}`, { headers: { authorization: `Bearer ${operator}` }, ...(body === undefined ? {} : { body }) });
    const cli = (args: string[]) => runCli(args, env.deps.config.databaseUrl, { ALMONER_OPERATOR: 'bob', SPONSOR_NAME: 'Vermont Giving Fund' });
    const checked = (step: string) => assertLedgerBalanced(env.deps, step);

    before(async () => {
      env = await openEnv(engine, { sponsor: { name: 'Vermont Giving Fund', ein: '12-3456789', address: '1 Main St, Burlington VT', bank: 'B', brokerage: 'B', crypto: 'C' } });
      await makeNonProfit(env.deps, { ein: '261544963', name: 'Vermont Foodbank' });
      donor = await makeUser(env.deps, { name: 'Wire Donor' });
      operator = (await createAdminToken(env.deps, 'receiving', 'test', undefined, 'ana')).token;
    });
    after(async () => env.close());

    test('contributions correct-value: --amount for cash, the new value and receipt said, audited as the operator; no --reason, no change', async () => {
      const declared = await call(env.app, 'POST', '/v1/contributions', { key: donor.key, body: { type: 'wire_payment', amount: 20 } });
      const id = declared.body.id as number;
      assert.equal((await admin('POST', `/contributions/${id}/receive`, { units: '2000', valuation: '1', force: true })).status, 200);
      assert.equal((await admin('POST', `/contributions/${id}/advance`, { status: 'success' })).status, 200);
      const bad = await cli(['contributions', 'correct-value', String(id), '--amount', '20']);
      assert.equal(bad.code, 2, bad.stdout);
      assert.match(bad.stderr, /--reason is required/);
      const both = await cli(['contributions', 'correct-value', String(id), '--amount', '20', '--units', '20', '--reason', 'x']);
      assert.match(both.stderr, /--amount \(cash\) or --units with --valuation/);
      const res = await cli(['contributions', 'correct-value', String(id), '--amount', '20', '--reason', 'cents typed as dollars']);
      assert.equal(res.code, 0, res.stderr);
      assert.match(res.stdout, new RegExp(`Contribution ${id} is worth \\$20\\.00 \\(was \\$2,000\\.00\\); receipt R-\\d+ replaces the previous one`));
      const audit = await env.deps.db.selectFrom('audit_log').select('actor').where('action', '=', 'contribution.value_corrected').where('object_id', '=', id).execute();
      assert.deepEqual(
        audit.map((a) => a.actor),
        ['operator:bob'],
      );
      await checked('a value corrected from the CLI');
    });

    test('payments run open and submit say what they do and how long it took; stdout is the run', async () => {
      await fund(env.deps, donor, 500_00);
      assert.equal((await call(env.app, 'POST', '/v1/donations', { key: donor.key, body: { ein: '261544963', amount: 40 } })).status, 201);
      assert.equal((await admin('POST', '/donations/batch', { event: 'approve', status: 'scheduled' })).status, 200);
      const day = bankingDayFrom(addDays(env.deps.clock.now().toISOString().slice(0, 10), 1));
      const opened = await cli(['payments', 'run', 'open', '--date', day]);
      assert.equal(opened.code, 0, opened.stderr);
      assert.match(opened.stderr, new RegExp(`^Opening a run for ${day}: .+\\.\\.\\.\\n  done in \\d+\\.\\d s\\n$`));
      const runId = /^Payment run (\d+)/m.exec(opened.stdout)?.[1];
      assert.ok(runId !== undefined, opened.stdout);
      const submitted = await cli(['payments', 'run', 'submit', runId]);
      assert.equal(submitted.code, 0, submitted.stderr);
      assert.match(submitted.stderr, new RegExp(`^Submitting run ${runId}: .+\\.\\.\\.\\n  done in \\d+\\.\\d s\\n$`));
      assert.match(submitted.stdout, /submitted/);
      await checked('a run opened and submitted from the CLI');
      // What goes to the bank is written whole and for the operator alone: a file of that name
      // before (readable by all, held open by a reader) is replaced, not rewritten in place.
      const dir = mkdtempSync(join(tmpdir(), 'almoner-bank-'));
      const out = join(dir, 'register.csv');
      writeFileSync(out, 'an older file', { mode: 0o644 });
      linkSync(out, join(dir, 'held'));
      const register = await cli(['payments', 'run', 'checks', runId, '--out', out]);
      assert.equal(register.code, 0, register.stderr);
      assert.equal(statSync(out).mode & 0o777, 0o600);
      assert.notEqual(statSync(out).ino, statSync(join(dir, 'held')).ino);
      assert.equal(readFileSync(join(dir, 'held'), 'utf8'), 'an older file');
      assert.match(readFileSync(out, 'utf8'), /^[^\n]+,[^\n]+\n/, 'the register, with its header');
      assert.deepEqual(readdirSync(dir).sort(), ['held', 'register.csv'], 'nothing half written beside it');
    });
  });
}
