// Declared contributions on both engines (rules §7): a donor declares a wire
// and a stock transfer, gets instructions and references; the operator finds
// each by its reference and records what arrived (the stock at its valuation
// on the day); the journal, the balance and waiting donations follow.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { balancesOf, call, engines, fingerprint, fundSandbox, makeNonProfit, makeUser, openEnv, assertLedgerBalanced, type TestEnv, type TestUser } from './harness.ts';
import { createAdminToken } from '../src/modules/admin/index.ts';
import { pdfText } from './pdf.ts';
import { createKeyForOwner } from '../src/modules/users/index.ts';

for (const { name: engine } of engines()) {
  describe(`declared contributions on ${engine}`, () => {
    let env: TestEnv;
    let donor: TestUser;
    let operator: string;
    const admin = (method: string, url: string, body?: unknown) =>
      call(env.app, method, `/admin/v1${url}`, { headers: { authorization: `Bearer ${operator}` }, ...(body === undefined ? {} : { body }) });

    before(async () => {
      env = await openEnv(engine, {
        sponsor: {
          name: 'Vermont Giving Fund',
          ein: '12-3456789',
          address: '1 Main St, Burlington VT',
          bank: 'First Bank, routing 011000015, account 1234',
          brokerage: 'Broker DTC 0226, account 98765',
          crypto: 'BTC bc1qexample',
        },
      });
      await makeNonProfit(env.deps, { ein: '261544963', name: 'Vermont Foodbank' });
      donor = await makeUser(env.deps, { name: 'Declaring Donor' });
      operator = (await createAdminToken(env.deps, 'receiving', 'test')).token;
    });
    after(async () => env.close());

    test('a $5,000 wire and 10 shares: declared, found by reference, received (the stock valued on the day), cleared; a waiting donation is promoted', async () => {
      const waiting = await call(env.app, 'POST', '/v1/donations', { key: donor.key, body: { ein: '261544963', amount: 6000 } });
      assert.equal(waiting.body.status, 'waiting_for_funds');
      const wire = await call(env.app, 'POST', '/v1/contributions', { key: donor.key, body: { type: 'wire_payment', amount: 5000 } });
      assert.equal(wire.status, 201);
      assert.equal(wire.headers.location, `/v1/contributions/${wire.body.id}`);
      assert.equal(wire.body.status, 'waiting_for_funds');
      assert.match(wire.body.reference, /^ALM-[2-9A-HJ-NP-Z]{4}-[2-9A-HJ-NP-Z]{4}$/);
      assert.equal(wire.body.instructions.method, 'bank_transfer');
      assert.match(wire.body.instructions.steps.join(' '), /Send \$5,000\.00 to Vermont Giving Fund \(EIN 12-3456789\): First Bank/);
      assert.ok(wire.body.instructions.steps.join(' ').includes(wire.body.reference));
      const stock = await call(env.app, 'POST', '/v1/contributions', { key: donor.key, body: { type: 'stock_payment', units: 10, symbol: 'AAPL' } });
      assert.equal(stock.status, 201);
      assert.deepEqual([stock.body.units, stock.body.currency, stock.body.valuation], [10, 'AAPL', 0]);
      assert.match(stock.body.instructions.steps[0], /transfer 10 shares of AAPL to Vermont Giving Fund/);
      assert.equal(await balancesOf(env.deps, donor.fund_id), await balancesOf(env.deps, donor.fund_id), 'nothing moved');
      assert.equal((await call(env.app, 'GET', '/v1/users/me/balance', { key: donor.key })).body.available_balance ?? 0, 0);

      // The operator finds each by its reference (as written on the transfer, any case).
      const found = await admin('GET', `/contributions/awaiting?reference=${wire.body.reference.toLowerCase()}`);
      assert.deepEqual(
        found.body.items.map((c: { id: number }) => c.id),
        [wire.body.id],
      );
      // The wire arrives whole; the stock as 10 shares at the day's close.
      assert.equal((await admin('POST', `/contributions/${wire.body.id}/receive`, { units: '5000', valuation: '1' })).status, 200);
      assert.equal((await admin('POST', `/contributions/${stock.body.id}/receive`, { units: '10', valuation: '187.42', valuation_source: 'NASDAQ close 2026-11-20' })).status, 200);
      const mine = await call(env.app, 'GET', '/v1/contributions', { key: donor.key });
      const byId = new Map(mine.body.items.map((c: { id: number; status: string; valuation: number }) => [c.id, c]));
      assert.deepEqual([(byId.get(wire.body.id) as { status: string }).status, (byId.get(stock.body.id) as { valuation: number }).valuation], ['pending', 187.42]);
      assert.equal((await call(env.app, 'GET', `/v1/contributions/${wire.body.id}`, { key: donor.key })).body.instructions, null, 'no instructions once the money is in');
      const balance = (await call(env.app, 'GET', '/v1/users/me/balance', { key: donor.key })).body;
      assert.equal(balance.pending_deposit_balance, 6874.2);
      for (const c of [wire.body.id, stock.body.id]) assert.equal((await admin('POST', `/contributions/${c}/advance`, { status: 'success' })).status, 200);
      const after = (await call(env.app, 'GET', '/v1/users/me/balance', { key: donor.key })).body;
      assert.equal(after.available_balance, 874.2, '6,874.20 in, 6,000 held by the promoted donation');
      assert.equal((await call(env.app, 'GET', `/v1/donations/${waiting.body.id}`, { key: donor.key })).body.status, 'scheduled');
      const audit = await env.deps.db
        .selectFrom('audit_log')
        .select(['action', 'after'])
        .where('object_type', '=', 'contribution')
        .where('object_id', '=', stock.body.id)
        .orderBy('id')
        .execute();
      assert.deepEqual(
        audit.map((a) => a.action),
        ['contribution.arrived', 'contribution.pending', 'contribution.success'],
      );
      assert.match(audit[0]?.after ?? '', /NASDAQ close 2026-11-20/);
      await assertLedgerBalanced(env.deps);

      // Receipts (rules §13): one each, issued once, stating what rules §13 requires.
      const cash = await call(env.app, 'GET', `/v1/contributions/${wire.body.id}/receipt`, { key: donor.key });
      assert.equal(cash.status, 200);
      assert.match(cash.body.number, /^R-\d{6}$/);
      assert.deepEqual(cash.body.sponsor, { name: 'Vermont Giving Fund', ein: '12-3456789', address: '1 Main St, Burlington VT' });
      assert.deepEqual([cash.body.donor.name, cash.body.amount_usd, cash.body.description, cash.body.declared_usd], ['Declaring Donor', 5000, null, null], 'arrived as declared');
      assert.match(cash.body.date_received, /^\d{4}-\d{2}-\d{2}$/);
      assert.match(cash.body.no_goods_or_services, /No goods or services/);
      assert.match(cash.body.exclusive_control, /exclusive legal control .*170\(f\)\(18\)/);
      const shares = (await call(env.app, 'GET', `/v1/contributions/${stock.body.id}/receipt`, { key: donor.key })).body;
      assert.deepEqual([shares.amount_usd, shares.description, shares.value_usd, shares.valuation_source], [null, '10 AAPL', 1874.2, 'NASDAQ close 2026-11-20']);
      assert.notEqual(shares.number, cash.body.number);
      const issued = await env.deps.db.selectFrom('receipts').select('id').where('contribution_id', 'in', [wire.body.id, stock.body.id]).execute();
      assert.equal(issued.length, 2, 'one each');
      // The PDF, read back by a real PDF text extractor.
      const pdf = await env.app.inject({ method: 'GET', url: `/v1/contributions/${stock.body.id}/receipt`, headers: { 'x-api-key': donor.key, accept: 'application/pdf' } });
      assert.equal(pdf.statusCode, 200);
      assert.equal(pdf.headers['content-type'], 'application/pdf');
      const text = pdfText(pdf.rawPayload);
      for (const expected of [
        'Vermont Giving Fund',
        'EIN 12-3456789',
        '1 Main St, Burlington VT',
        `Contribution receipt ${shares.number}`,
        'Donor: Declaring Donor',
        'Date received:',
        'Contributed: 10 AAPL (non-cash)',
        'Value used: $1,874.20 (NASDAQ close 2026-11-20)',
        'No goods or services',
        '170(f)(18)',
      ]) {
        assert.ok(text.includes(expected), `the PDF says ${expected}: ${text}`);
      }
      // Not another donor's, not before it succeeds.
      const other = await makeUser(env.deps);
      assert.equal((await call(env.app, 'GET', `/v1/contributions/${wire.body.id}/receipt`, { key: other.key })).body.code, 'contribution_not_found');
      const waitingOne = await call(env.app, 'POST', '/v1/contributions', { key: donor.key, body: { type: 'wire_payment', amount: 10 } });
      assert.equal((await call(env.app, 'GET', `/v1/contributions/${waitingOne.body.id}/receipt`, { key: donor.key })).body.code, 'receipt_not_found');
      await assertLedgerBalanced(env.deps);
    });

    test("the donor cancels a declaration while nothing arrived; not twice, not after money arrived, not another donor's", async () => {
      const declared = await call(env.app, 'POST', '/v1/contributions', { key: donor.key, body: { type: 'check_payment', amount: 250 } });
      assert.equal(declared.body.instructions.method, 'mail_check');
      assert.match(declared.body.instructions.steps.join(' '), /Mail it to 1 Main St, Burlington VT/);
      const other = await makeUser(env.deps);
      assert.equal((await call(env.app, 'DELETE', `/v1/contributions/${declared.body.id}`, { key: other.key })).body.code, 'contribution_not_found');
      assert.equal((await call(env.app, 'DELETE', `/v1/contributions/${declared.body.id}`, { key: donor.key })).status, 200);
      const twice = await call(env.app, 'DELETE', `/v1/contributions/${declared.body.id}`, { key: donor.key });
      assert.deepEqual([twice.status, twice.body.code, twice.body.detail], [409, 'contribution_not_cancellable', 'this contribution was already cancelled']);
      const late = await admin('POST', `/contributions/${declared.body.id}/receive`, { units: '250', valuation: '1' });
      assert.deepEqual([late.status, late.body.code], [409, 'invalid_transition']);
      assert.equal((await admin('GET', '/contributions/awaiting?reference=ALM-ZZZZ-ZZZZ')).body.items.length, 0, 'an unknown reference finds nothing');
      assert.equal((await admin('POST', '/contributions/999999/receive', { units: '1', valuation: '1' })).body.code, 'contribution_not_found');
      // What an operator records is checked like what a donor declares, and a refusal changes nothing.
      const open = await call(env.app, 'POST', '/v1/contributions', { key: donor.key, body: { type: 'wire_payment', amount: 40 } });
      const before = await fingerprint(env.deps);
      for (const [body, field] of [
        [{ units: '0', valuation: '1' }, 'units'],
        [{ units: '40', valuation: '-1' }, 'valuation'],
        [{ units: '1.123456789', valuation: '1' }, 'units'],
        [{ units: '10', valuation: '1', valuation_source: '' }, 'valuation_source'],
      ] as const) {
        const res = await admin('POST', `/contributions/${open.body.id}/receive`, body);
        assert.deepEqual([res.status, res.body.code, res.body.errors?.[0]?.field], [422, 'validation_failed', field], JSON.stringify(body));
      }
      // A $40 wire received as 40 units at 40 (the dollars typed twice) is $1,600: refused, naming both.
      const far = await admin('POST', `/contributions/${open.body.id}/receive`, { units: '40', valuation: '40' });
      assert.deepEqual([far.status, far.body.code, far.body.errors?.[0]?.code, far.body.errors?.[0]?.field], [422, 'received_differs', 'received_differs', 'units']);
      assert.match(far.body.errors[0].message, /worth 1,?600\.00 dollars, but 40\.00 were declared/);
      assert.deepEqual(await fingerprint(env.deps), before);
      // Within 10% of the declaration it is taken as it came; beyond it only when forced, and audited as forced.
      assert.equal((await admin('POST', `/contributions/${open.body.id}/receive`, { units: '36', valuation: '1' })).status, 200);
      const second = await call(env.app, 'POST', '/v1/contributions', { key: donor.key, body: { type: 'wire_payment', amount: 40 } });
      assert.equal((await admin('POST', `/contributions/${second.body.id}/receive`, { units: '35.99', valuation: '1' })).body.errors?.[0]?.code, 'received_differs');
      assert.equal((await admin('POST', `/contributions/${second.body.id}/receive`, { units: '30', valuation: '1', force: true })).status, 200);
      const audit = await env.deps.db
        .selectFrom('audit_log')
        .select('after')
        .where('action', '=', 'contribution.arrived')
        .where('object_id', '=', second.body.id)
        .executeTakeFirstOrThrow();
      assert.match(String(audit.after), /"declared_cents":4000,"forced":true/);
      // Its receipt states what was received and, as it differs, what was declared (rules §13).
      assert.equal((await admin('POST', `/contributions/${second.body.id}/advance`, { status: 'success' })).status, 200);
      const receipt = await call(env.app, 'GET', `/v1/contributions/${second.body.id}/receipt`, { key: donor.key });
      assert.deepEqual([receipt.body.amount_usd, receipt.body.declared_usd], [30, 40]);
      const pdf = await env.app.inject({ method: 'GET', url: `/v1/contributions/${second.body.id}/receipt`, headers: { 'x-api-key': donor.key, accept: 'application/pdf' } });
      const text = pdfText(pdf.rawPayload);
      for (const said of ['Amount: $30.00 (cash)', 'Declared: $40.00; this receipt states what was received.']) assert.ok(text.includes(said), `the PDF says ${said}: ${text}`);
    });

    test('30+ malformed declarations are refused with their problem; the database is unchanged', async () => {
      const before = await fingerprint(env.deps);
      const bad: Array<[unknown, string]> = [
        [{}, 'validation_failed'],
        [{ type: 'wire_payment' }, 'amount_invalid'],
        [{ type: 'wire_payment', amount: 0 }, 'amount_invalid'],
        [{ type: 'wire_payment', amount: 0.5 }, 'amount_invalid'],
        [{ type: 'wire_payment', amount: -5 }, 'amount_invalid'],
        [{ type: 'wire_payment', amount: 10.005 }, 'amount_invalid'],
        [{ type: 'wire_payment', amount: '100' }, 'amount_invalid'],
        [{ type: 'wire_payment', amount: 1e12 }, 'amount_invalid'],
        [{ type: 'wire_payment', amount: null }, 'amount_invalid'],
        [{ type: 'wire_payment', amount: 100, units: 5 }, 'validation_failed'],
        [{ type: 'check_payment', amount: 100, symbol: 'AAPL' }, 'validation_failed'],
        [{ type: 'check_daf_transfer', amount: true }, 'amount_invalid'],
        [{ type: 'wire_daf_transfer', amount: [100] }, 'amount_invalid'],
        [{ type: 'company_payment', amount: { v: 1 } }, 'amount_invalid'],
        [{ type: 'bank_account_scheduled_deposit', amount: Number.NaN }, 'amount_invalid'], // NaN is sent as null
        [{ type: 'stock_payment' }, 'validation_failed'],
        [{ type: 'stock_payment', units: 10 }, 'validation_failed'],
        [{ type: 'stock_payment', symbol: 'AAPL' }, 'validation_failed'],
        [{ type: 'stock_payment', units: 0, symbol: 'AAPL' }, 'validation_failed'],
        [{ type: 'stock_payment', units: -1, symbol: 'AAPL' }, 'validation_failed'],
        [{ type: 'stock_payment', units: '1.123456789', symbol: 'AAPL' }, 'validation_failed'],
        [{ type: 'stock_payment', units: 10, symbol: 'aapl' }, 'validation_failed'],
        [{ type: 'stock_payment', units: 10, symbol: '' }, 'validation_failed'],
        [{ type: 'stock_payment', units: 10, symbol: 'TOOLONGSYMBOLNAME1' }, 'validation_failed'],
        [{ type: 'stock_payment', units: 10, symbol: 42 }, 'validation_failed'],
        [{ type: 'stock_payment', units: 10, symbol: 'AAPL', amount: 100 }, 'validation_failed'],
        [{ type: 'crypto_payment', units: '1e3', symbol: 'BTC' }, 'validation_failed'],
        [{ type: 'crypto_payment', units: 'lots', symbol: 'BTC' }, 'validation_failed'],
        [{ type: 'crypto_payment', units: 0.5, symbol: '$BTC' }, 'validation_failed'],
        [{ type: 'credit_card_scheduled_deposit', amount: 100 }, 'type_not_accepted'],
        [{ type: 'gold_bars', amount: 100 }, 'validation_failed'],
        [{ type: 'wire_payment', amount: 100, extra: 1 }, 'unknown_field'],
        [{ type: 7, amount: 100 }, 'validation_failed'],
      ];
      for (const [body, code] of bad) {
        const res = await call(env.app, 'POST', '/v1/contributions', { key: donor.key, body });
        assert.ok(res.status === 422 || res.status === 400, `${JSON.stringify(body)}: ${res.status}`);
        const codes = [res.body.code, ...(res.body.errors ?? []).map((e: { code: string }) => e.code)];
        assert.ok(codes.includes(code), `${JSON.stringify(body)}: ${JSON.stringify(res.body)}`);
      }
      assert.deepEqual(await fingerprint(env.deps), before);
    });

    test('books: a sandbox declaration is not found from a live key, and operators see it only with ?book=test', async () => {
      const testKey = (await createKeyForOwner(env.deps, donor.user_id, 'sandbox', 'test')).key;
      await fundSandbox(env.app, testKey, 10);
      const sandbox = await call(env.app, 'POST', '/v1/contributions', { key: testKey, body: { type: 'wire_payment', amount: 10 } });
      assert.equal(sandbox.status, 201);
      assert.equal((await call(env.app, 'GET', `/v1/contributions/${sandbox.body.id}`, { key: donor.key })).status, 404);
      assert.equal((await call(env.app, 'DELETE', `/v1/contributions/${sandbox.body.id}`, { key: donor.key })).status, 404);
      assert.equal((await admin('GET', `/contributions/awaiting?reference=${sandbox.body.reference}`)).body.items.length, 0);
      assert.equal((await admin('GET', `/contributions/awaiting?reference=${sandbox.body.reference}&book=test`)).body.items.length, 1);
      assert.equal((await admin('POST', `/contributions/${sandbox.body.id}/receive`, { units: '10', valuation: '1' })).body.code, 'contribution_not_found');
    });
  });
}
