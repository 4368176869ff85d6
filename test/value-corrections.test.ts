// Correcting the value recorded for money received (docs/rules.md §13), on both engines: a $5,000
// wire received as 5,000 units at 5,000 dollars credited $25,000,000 and receipted it; the
// operator sets what really came. The difference moves by its own journal entry, a corrected
// receipt replaces the wrong one (both kept), the audit log holds both values and why, and
// `almoner check` passes after every step. Every refusal leaves the database as it was.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { call, engines, fingerprint, makeNonProfit, makeUser, openEnv, type TestEnv, type TestUser, assertLedgerBalanced } from './harness.ts';
import { createAdminToken } from '../src/modules/admin/index.ts';

for (const { name: engine } of engines()) {
  describe(`correcting a value received on ${engine}`, () => {
    let env: TestEnv;
    let donor: TestUser;
    let operator: string;
    const admin = (method: string, url: string, body?: unknown) =>
      call(env.app, method, `/admin/v1${url}`, { headers: { authorization: `Bearer ${operator}` }, ...(body === undefined ? {} : { body }) });
    const checked = (step: string) => assertLedgerBalanced(env.deps, step);
    /** The donor's fund's balances, in dollars, by account kind. */
    const available = async () => {
      const rows = await env.deps.db.selectFrom('ledger_accounts').select(['kind', 'balance_cents']).where('fund_id', '=', donor.fund_id).execute();
      return Object.fromEntries(rows.map((r) => [r.kind, Number(r.balance_cents) / 100])) as Record<'available' | 'pending_deposit' | 'reserved', number>;
    };
    const refused = async (res: Promise<{ status: number; body: { code?: string } }>, status: number, code: string) => {
      const before = await fingerprint(env.deps);
      const r = await res;
      assert.deepEqual([r.status, r.body.code], [status, code], JSON.stringify(r.body));
      assert.deepEqual(await fingerprint(env.deps), before, `${code} changed nothing`);
    };
    /** A declared wire of `dollars`, received as `units` at `valuation` (forced), then cleared unless `pending`. */
    const received = async (dollars: number, units: string, valuation: string, pending = false): Promise<number> => {
      const declared = await call(env.app, 'POST', '/v1/contributions', { key: donor.key, body: { type: 'wire_payment', amount: dollars } });
      assert.equal(declared.status, 201, JSON.stringify(declared.body));
      const id = declared.body.id as number;
      assert.equal((await admin('POST', `/contributions/${id}/receive`, { units, valuation, force: true })).status, 200);
      if (!pending) assert.equal((await admin('POST', `/contributions/${id}/advance`, { status: 'success' })).status, 200);
      return id;
    };

    before(async () => {
      env = await openEnv(engine, {
        sponsor: { name: 'Vermont Giving Fund', ein: '12-3456789', address: '1 Main St, Burlington VT', bank: 'First Bank', brokerage: 'Broker', crypto: 'BTC' },
      });
      await makeNonProfit(env.deps, { ein: '261544963', name: 'Vermont Foodbank' });
      donor = await makeUser(env.deps, { name: 'Wire Donor' });
      operator = (await createAdminToken(env.deps, 'receiving', 'test', undefined, 'ana')).token;
    });
    after(async () => env.close());

    test('a $5,000 wire credited as $25,000,000 is corrected: the difference taken back, a corrected receipt, audited', async () => {
      const id = await received(5000, '5000', '5000');
      assert.equal((await available()).available, 25_000_000);
      const first = await call(env.app, 'GET', `/v1/contributions/${id}/receipt`, { key: donor.key });
      const corrected = await admin('POST', `/contributions/${id}/value_corrections`, { units: '5000', valuation: '1', reason: 'the units were typed as dollars' });
      assert.equal(corrected.status, 201, JSON.stringify(corrected.body));
      assert.deepEqual([corrected.body.amount, corrected.body.previous_amount], [5000, 25_000_000]);
      assert.equal((await available()).available, 5000);
      const receipt = await call(env.app, 'GET', `/v1/contributions/${id}/receipt`, { key: donor.key });
      assert.equal(receipt.body.number, corrected.body.receipt);
      assert.deepEqual(receipt.body.all, [first.body.number, corrected.body.receipt], 'the wrong receipt is kept, replaced');
      assert.equal(receipt.body.correction_reason, 'the units were typed as dollars');
      assert.match(JSON.stringify(receipt.body), /5,?000(\.00)?/);
      assert.doesNotMatch(JSON.stringify(receipt.body), /25,?000,?000/);
      const entries = await env.deps.db.selectFrom('journal_entries').select(['memo']).where('contribution_id', '=', id).orderBy('id').execute();
      assert.deepEqual(
        entries.map((e) => e.memo),
        ['contribution pending', 'contribution success', 'contribution value corrected'],
        'the first entries stay; the correction is its own',
      );
      const audit = await env.deps.db
        .selectFrom('audit_log')
        .select(['actor', 'before', 'after'])
        .where('action', '=', 'contribution.value_corrected')
        .where('object_id', '=', id)
        .executeTakeFirstOrThrow();
      assert.equal(audit.actor, 'admin:ana');
      assert.match(String(audit.before), /"amount_cents":2500000000/);
      assert.match(String(audit.after), /"amount_cents":500000,.*"reason":"the units were typed as dollars"/);
      await checked('a value corrected down');
    });

    test('a pending contribution is corrected up or down before it clears, without a receipt', async () => {
      const id = await received(300, '30', '1', true);
      const corrected = await admin('POST', `/contributions/${id}/value_corrections`, { units: '300', valuation: '1', reason: 'a zero was left off' });
      assert.deepEqual([corrected.status, corrected.body.amount, corrected.body.receipt], [201, 300, null]);
      assert.equal((await available()).pending_deposit, 300);
      await checked('a pending value corrected up');
      assert.equal((await admin('POST', `/contributions/${id}/advance`, { status: 'success' })).status, 200);
      const receipt = await call(env.app, 'GET', `/v1/contributions/${id}/receipt`, { key: donor.key });
      assert.equal(receipt.body.all.length, 1, 'one receipt, for the corrected value');
      await checked('the corrected contribution cleared');
    });

    test('refusals: bad values, no reason, nothing received, another book, more than the fund still holds', async () => {
      const id = await received(100, '100', '1');
      for (const [body, code] of [
        [{ units: 'abc', valuation: '1', reason: 'x' }, 'validation_failed'],
        [{ units: '0', valuation: '1', reason: 'x' }, 'validation_failed'],
        [{ units: '100', valuation: '2', reason: 'cash is valued at 1' }, 'validation_failed'],
        [{ units: '100', valuation: '1', reason: '  ' }, 'validation_failed'],
        [{ units: '100', valuation: '1', reason: 'x'.repeat(501) }, 'validation_failed'],
        [{ units: '100', valuation: '1', valuation_source: '', reason: 'x' }, 'validation_failed'],
        [{ units: '1000000001', valuation: '1', reason: 'x' }, 'amount_invalid'],
        [{ units: '0.001', valuation: '1', reason: 'x' }, 'validation_failed'],
        [{ units: '100', valuation: '1' }, 'validation_failed'],
        [{ units: '100', valuation: '1', reason: 'x', force: true }, 'unknown_field'],
      ] as const)
        await refused(admin('POST', `/contributions/${id}/value_corrections`, body), 422, code);
      // Operators only: no token, or a donor's own key, opens nothing.
      const body = { units: '1', valuation: '1', reason: 'x' };
      await refused(call(env.app, 'POST', `/admin/v1/contributions/${id}/value_corrections`, { body }), 401, 'unauthenticated');
      await refused(call(env.app, 'POST', `/admin/v1/contributions/${id}/value_corrections`, { key: donor.key, body }), 401, 'unauthenticated');
      await refused(admin('POST', '/contributions/999999/value_corrections', { units: '1', valuation: '1', reason: 'x' }), 404, 'contribution_not_found');
      await refused(admin('POST', `/contributions/${id}/value_corrections?book=test`, { units: '1', valuation: '1', reason: 'x' }), 404, 'contribution_not_found');
      const waiting = await call(env.app, 'POST', '/v1/contributions', { key: donor.key, body: { type: 'wire_payment', amount: 50 } });
      await refused(admin('POST', `/contributions/${waiting.body.id}/value_corrections`, { units: '50', valuation: '1', reason: 'x' }), 409, 'invalid_transition');
      // The donor gave most of it away meanwhile: the fund no longer holds what a correction would take back.
      const spent = (await available()).available - 10;
      assert.equal((await call(env.app, 'POST', '/v1/donations', { key: donor.key, body: { ein: '261544963', amount: spent } })).status, 201);
      await refused(admin('POST', `/contributions/${id}/value_corrections`, { units: '50', valuation: '1', reason: 'half came' }), 409, 'insufficient_funds');
      await checked('refused corrections');
    });
  });
}
