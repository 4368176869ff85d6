// Receiving from the command line and correcting receipts (rules §7, 13),
// on both engines: an operator finds a declaration by the reference written
// on the money, records what arrived; a receipt is corrected only by a new
// one that names the one it replaces, and both remain.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { call, engines, fingerprint, makeUser, openEnv, runCli, assertLedgerBalanced, type TestEnv, type TestUser } from './harness.ts';
import { createAdminToken } from '../src/modules/admin/index.ts';
import { pdfText } from './pdf.ts';

for (const { name: engine } of engines()) {
  describe(`receiving and receipt corrections on ${engine}`, () => {
    let env: TestEnv;
    let donor: TestUser;
    let operator: string;
    let url: string;
    const admin = (method: string, path: string, body?: unknown) =>
      call(env.app, method, `/admin/v1${path}`, { headers: { authorization: `Bearer ${operator}` }, ...(body === undefined ? {} : { body }) });
    const declare = async (body: unknown) => (await call(env.app, 'POST', '/v1/contributions', { key: donor.key, body })).body as { id: number; reference: string };

    before(async () => {
      env = await openEnv(engine);
      url = env.deps.config.databaseUrl;
      donor = await makeUser(env.deps, { name: 'Ada Lovelace' });
      operator = (await createAdminToken(env.deps, 'receiving', 'test')).token;
    });
    after(async () => env.close());

    test('the CLI lists what waits, receives a check by its reference and a stock by its id; pending with that money', async () => {
      const check = await declare({ type: 'check_payment', amount: 250 });
      const stock = await declare({ type: 'stock_payment', units: 3, symbol: 'MSFT' });
      const listed = await runCli(['contributions', 'awaiting'], url);
      assert.equal(listed.code, 0, listed.stderr);
      assert.match(listed.stdout, new RegExp(`${check.reference}.*\\$250\\.00`));
      assert.match(listed.stdout, new RegExp(`${stock.reference}.*3 MSFT`));
      const one = await runCli(['contributions', 'awaiting', '--reference', check.reference.toLowerCase()], url);
      assert.match(one.stdout, /^1 declared contributions waiting/m);

      const received = await runCli(['contributions', 'receive', check.reference, '--amount', '240'], url, { ALMONER_OPERATOR: 'mara' });
      assert.equal(received.code, 0, received.stderr);
      assert.match(received.stdout, /received: 240 at 1; it is pending/);
      const byId = await runCli(['contributions', 'receive', String(stock.id), '--units', '3', '--valuation', '411.5', '--source', 'NASDAQ close 2026-11-20'], url);
      assert.equal(byId.code, 0, byId.stderr);
      const balance = (await call(env.app, 'GET', '/v1/users/me/balance', { key: donor.key })).body;
      assert.equal(balance.pending_deposit_balance, 240 + 1234.5, 'what arrived, not what was declared');
      const audit = await env.deps.db
        .selectFrom('audit_log')
        .select(['actor', 'action'])
        .where('object_id', '=', check.id)
        .where('object_type', '=', 'contribution')
        .orderBy('id')
        .execute();
      assert.deepEqual(
        audit.map((a) => `${a.actor} ${a.action}`),
        ['operator:mara contribution.arrived', 'operator:mara contribution.pending'],
      );
      await assertLedgerBalanced(env.deps);
    });

    test('the CLI refuses a reference that does not exist, a cancelled declaration and bad figures, and changes nothing', async () => {
      const cancelled = await declare({ type: 'wire_payment', amount: 100 });
      assert.equal((await call(env.app, 'DELETE', `/v1/contributions/${cancelled.id}`, { key: donor.key })).status, 200);
      const waiting = await declare({ type: 'wire_payment', amount: 100 });
      const before = await fingerprint(env.deps);
      const cases: Array<[string[], RegExp]> = [
        [['contributions', 'receive', 'ALM-ZZZZ-ZZZZ', '--units', '100', '--valuation', '1'], /no declared contribution waits for money with reference ALM-ZZZZ-ZZZZ/],
        [['contributions', 'receive', cancelled.reference, '--units', '100', '--valuation', '1'], /no declared contribution waits/],
        [['contributions', 'receive', String(cancelled.id), '--units', '100', '--valuation', '1'], /cannot receive money/],
        [['contributions', 'receive', waiting.reference, '--units', '100'], /give --amount DOLLARS \(cash\), or --units U --valuation V/],
        [['contributions', 'receive', waiting.reference, '--amount', '100', '--units', '100'], /--amount \(cash\) or --units with --valuation/],
        [['contributions', 'receive', waiting.reference, '--amount', '0'], /units/],
        // The README's old example for a $100 wire: 100 units at 100 is $10,000, far from what was declared.
        [['contributions', 'receive', waiting.reference, '--units', '100', '--valuation', '100'], /worth 10,?000\.00 dollars, but 100\.00 were declared/],
        [['contributions', 'receive', waiting.reference, '--units', '-5', '--valuation', '1'], /units/],
        [['contributions', 'receive', waiting.reference, '--units', '100', '--valuation', 'abc'], /valuation/],
        [['contributions', 'receive', waiting.reference, '--units', '100', '--valuation', '1', '--source', ' '], /valuation_source/],
        [['contributions', 'receive', 'not a reference!', '--units', '100', '--valuation', '1'], /reference/],
        [['contributions', 'receive', '999999', '--units', '100', '--valuation', '1'], /no contribution 999999/],
        [['contributions', 'awaiting', '--reference', 'ALM;drop'], /--reference is a reference/],
        [['contributions', 'correct-receipt', String(waiting.id)], /--reason is required/],
      ];
      for (const [args, message] of cases) {
        const result = await runCli(args, url);
        assert.notEqual(result.code, 0, args.join(' '));
        assert.match(result.stderr, message, args.join(' '));
      }
      assert.deepEqual(await fingerprint(env.deps), before);
    });

    test('a corrected receipt names the one it replaces and why; both remain; the newest is what the donor reads', async () => {
      const wire = await declare({ type: 'wire_payment', amount: 1200 });
      assert.equal((await admin('POST', `/contributions/${wire.id}/receive`, { units: '1200', valuation: '1' })).status, 200);
      assert.equal((await admin('POST', `/contributions/${wire.id}/advance`, { status: 'success' })).status, 200);
      const original = (await call(env.app, 'GET', `/v1/contributions/${wire.id}/receipt`, { key: donor.key })).body;
      assert.deepEqual([original.donor.name, original.replaces, original.correction_reason, original.all], ['Ada Lovelace', null, null, [original.number]]);

      // The donor's legal name was wrong; they fix it, and the operator corrects the receipt.
      await env.deps.db.updateTable('users').set({ name: 'Augusta Ada King' }).where('id', '=', donor.user_id).execute();
      const corrected = await admin('POST', `/contributions/${wire.id}/receipt/corrections`, { reason: "the donor's legal name" });
      assert.equal(corrected.status, 201);
      assert.match(corrected.body.receipt, /^R-\d{6}$/);
      const now = (await call(env.app, 'GET', `/v1/contributions/${wire.id}/receipt`, { key: donor.key })).body;
      assert.deepEqual(
        [now.number, now.donor.name, now.replaces, now.correction_reason, now.amount_usd, now.all],
        [corrected.body.receipt, 'Augusta Ada King', original.number, "the donor's legal name", 1200, [original.number, corrected.body.receipt]],
      );
      // Both remain as issued: the original still names the old name.
      const kept = await env.deps.db.selectFrom('receipts').select(['id', 'body', 'replaces_id']).where('contribution_id', '=', wire.id).orderBy('id').execute();
      assert.equal(kept.length, 2);
      assert.equal(JSON.parse(kept[0]?.body ?? '{}').donor.name, 'Ada Lovelace');
      assert.equal(kept[1]?.replaces_id, kept[0]?.id);
      const pdf = await env.app.inject({ method: 'GET', url: `/v1/contributions/${wire.id}/receipt`, headers: { 'x-api-key': donor.key, accept: 'application/pdf' } });
      const text = pdfText(pdf.rawPayload);
      assert.ok(text.includes(`This receipt corrects and replaces receipt ${original.number}: the donor's legal name.`), text);
      assert.ok(text.includes('Donor: Augusta Ada King'), text);

      // A second correction from the CLI replaces the newest, never the same one twice.
      const again = await runCli(['contributions', 'correct-receipt', String(wire.id), '--reason', 'sponsor address'], url);
      assert.equal(again.code, 0, again.stderr);
      const third = (await call(env.app, 'GET', `/v1/contributions/${wire.id}/receipt`, { key: donor.key })).body;
      assert.equal(third.replaces, corrected.body.receipt);
      assert.equal(third.all.length, 3);
      const audit = await env.deps.db.selectFrom('audit_log').select('action').where('object_id', '=', wire.id).where('action', '=', 'receipt.corrected').execute();
      assert.equal(audit.length, 2);
    });

    test('corrections that cannot be: no reason, no receipt yet, no such contribution, the other book; nothing changes', async () => {
      const waiting = await declare({ type: 'check_payment', amount: 50 });
      const before = await fingerprint(env.deps);
      const cases: Array<[string, unknown, number, string]> = [
        [`/contributions/${waiting.id}/receipt/corrections`, { reason: '   ' }, 422, 'validation_failed'],
        [`/contributions/${waiting.id}/receipt/corrections`, { reason: 'x'.repeat(501) }, 422, 'validation_failed'],
        [`/contributions/${waiting.id}/receipt/corrections`, {}, 422, 'validation_failed'],
        [`/contributions/${waiting.id}/receipt/corrections`, { reason: 'a typo' }, 404, 'receipt_not_found'],
        ['/contributions/99999999/receipt/corrections', { reason: 'a typo' }, 404, 'contribution_not_found'],
        [`/contributions/${waiting.id}/receipt/corrections?book=test`, { reason: 'a typo' }, 404, 'contribution_not_found'],
      ];
      for (const [path, body, status, code] of cases) {
        const res = await admin('POST', path, body);
        assert.deepEqual([res.status, res.body.code], [status, code], `${path} ${JSON.stringify(body)}`);
      }
      assert.deepEqual(await fingerprint(env.deps), before);
    });
  });
}
