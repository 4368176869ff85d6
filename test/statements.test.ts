// Tax statements (rules §13) on both engines: a year's contributions
// (deductible, with receipt numbers) and grants (informational), their totals
// equal to the journal's; any period for a fiscal year; the PDF read back;
// bad periods refused; and neither statements nor receipts cross a book.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { call, engines, fingerprint, fundSandbox, makeNonProfit, makeUser, openEnv, TestClock, type TestEnv, type TestUser } from './harness.ts';
import { createAdminToken } from '../src/modules/admin/index.ts';
import { recordContribution } from '../src/modules/contributions/index.ts';
import { pdfText } from './pdf.ts';

const EIN = '261544963';

for (const { name: engine } of engines()) {
  describe(`tax statements on ${engine}`, () => {
    let env: TestEnv;
    let donor: TestUser;
    let operator: string;
    const clock = new TestClock('2025-06-01T12:00:00.000Z');
    const admin = (method: string, url: string, body?: unknown) =>
      call(env.app, method, `/admin/v1${url}`, { headers: { authorization: `Bearer ${operator}` }, ...(body === undefined ? {} : { body }) });
    const wire = (dollars: string) =>
      recordContribution(
        env.deps,
        { user_id: donor.user_id, fund_id: donor.fund_id, type: 'wire_payment', units: dollars, valuation: '1', currency: 'USD', frequency: 'OneTime', status: 'success' },
        'test',
      );
    async function grant(dollars: number): Promise<void> {
      const made = await call(env.app, 'POST', '/v1/donations', { key: donor.key, body: { ein: EIN, amount: dollars } });
      assert.equal(made.status, 201);
      assert.equal((await admin('POST', `/donations/${made.body.id}/approve`)).status, 200);
      assert.equal((await admin('POST', `/donations/${made.body.id}/pay`)).status, 200);
    }

    /** What the journal says came into the donor's fund, and went out to charities, in [from, to). */
    async function journal(from: string, to: string): Promise<{ contributed: number; granted: number }> {
      const contributed = await sql<{ s: string | number | null }>`select sum(p.amount_cents) as s from postings p
        join journal_entries e on e.id = p.entry_id join ledger_accounts a on a.id = p.account_id
        where e.contribution_id is not null and a.fund_id = ${donor.fund_id} and a.kind = 'available' and e.created_at >= ${from} and e.created_at < ${to}`.execute(env.deps.db);
      const granted = await sql<{ s: string | number | null }>`select sum(p.amount_cents) as s from postings p
        join journal_entries e on e.id = p.entry_id join ledger_accounts a on a.id = p.account_id join donations d on d.id = e.donation_id
        where d.user_id = ${donor.user_id} and a.kind = 'grants_paid' and e.created_at >= ${from} and e.created_at < ${to}`.execute(env.deps.db);
      return { contributed: Number(contributed.rows[0]?.s ?? 0) / 100, granted: Number(granted.rows[0]?.s ?? 0) / 100 };
    }

    before(async () => {
      env = await openEnv(engine, {}, { clock });
      await makeNonProfit(env.deps, { ein: EIN, name: 'Vermont Foodbank' });
      donor = await makeUser(env.deps, { name: 'Frances Perkins' });
      operator = (await createAdminToken(env.deps, 'statements', 'test')).token;
      // 2025: $1,000 in, $100 granted. 2026: shares declared and received, a wire on New Year's Eve, $50 granted.
      await wire('1000');
      await grant(100);
      clock.set('2026-02-10T15:00:00.000Z');
      const shares = await call(env.app, 'POST', '/v1/contributions', { key: donor.key, body: { type: 'stock_payment', units: 10, symbol: 'AAPL' } });
      assert.equal((await admin('POST', `/contributions/${shares.body.id}/receive`, { units: '10', valuation: '187.42', valuation_source: 'NASDAQ close' })).status, 200);
      assert.equal((await admin('POST', `/contributions/${shares.body.id}/advance`, { status: 'success' })).status, 200);
      await grant(50);
      clock.set('2026-12-31T23:59:00.000Z');
      await wire('10.50');
      clock.set('2027-01-01T00:00:30.000Z');
      await wire('7');
    });
    after(async () => env.close());

    test("a year's statement: its contributions with their receipts and its grants; totals equal the journal's", async () => {
      for (const [year, count, grants] of [
        [2025, 1, 1],
        [2026, 2, 1],
        [2027, 1, 0],
      ] as const) {
        const res = await call(env.app, 'GET', `/v1/tax_statements/${year}`, { key: donor.key });
        assert.equal(res.status, 200);
        const s = res.body;
        assert.deepEqual([s.from, s.to, s.contributions.length, s.grants.length], [`${year}-01-01`, `${year}-12-31`, count, grants]);
        const fromJournal = await journal(`${year}-01-01T00:00:00.000Z`, `${year + 1}-01-01T00:00:00.000Z`);
        assert.equal(s.total_contributions, fromJournal.contributed, `${year}: contributions`);
        assert.equal(s.total_grants, fromJournal.granted, `${year}: grants`);
        for (const c of s.contributions) assert.match(c.receipt, /^R-\d{6}$/);
        assert.match(s.grants_note, /not deductible a second time/);
      }
      const y2026 = (await call(env.app, 'GET', '/v1/tax_statements/2026', { key: donor.key })).body;
      assert.deepEqual(
        y2026.contributions.map((c: { description: string | null; amount: number }) => [c.description, c.amount]),
        [
          ['10 AAPL', 1874.2],
          [null, 10.5],
        ],
      );
      assert.equal(y2026.total_contributions, 1884.7);
      assert.deepEqual(
        y2026.grants.map((g: { ein: string; amount: number }) => [g.ein, g.amount]),
        [[EIN, 50]],
      );
    });

    test('a fiscal year over any dates; the PDF says what the JSON says', async () => {
      const fiscal = (await call(env.app, 'GET', '/v1/tax_statements?from=2025-07-01&to=2026-06-30', { key: donor.key })).body;
      assert.deepEqual([fiscal.contributions.length, fiscal.total_contributions, fiscal.total_grants], [1, 1874.2, 50]);
      const journalled = await journal('2025-07-01T00:00:00.000Z', '2026-07-01T00:00:00.000Z');
      assert.deepEqual([fiscal.total_contributions, fiscal.total_grants], [journalled.contributed, journalled.granted]);
      const sameAsYear = (await call(env.app, 'GET', '/v1/tax_statements/2026?from=2026-01-01&to=2026-12-31', { key: donor.key })).body;
      assert.equal(sameAsYear.total_contributions, 1884.7);
      const pdf = await env.app.inject({ method: 'GET', url: '/v1/tax_statements/2026', headers: { 'x-api-key': donor.key, accept: 'application/pdf' } });
      assert.equal(pdf.statusCode, 200);
      assert.equal(pdf.headers['content-type'], 'application/pdf');
      const text = pdfText(pdf.rawPayload);
      for (const expected of [
        'Contributions statement, 2026-01-01 to 2026-12-31',
        'Donor: Frances Perkins',
        'Contributions (deductible)',
        'Stock or fund shares (10 AAPL) $1,874.20 receipt R-',
        'Investments (informational)',
        'Total contributions: $1,884.70',
        'Grants made from your fund (informational)',
        'Vermont Foodbank (EIN 261544963) $50.00',
        'Total grants: $50.00',
        'not deductible a second time',
      ])
        assert.ok(text.includes(expected), `the PDF says ${expected}: ${text}`);
      assert.ok(!/_payment|_deposit/.test(text), 'no type is printed as its code');
    });

    test('bad periods are refused with invalid_parameter; nothing changes', async () => {
      const before = await fingerprint(env.deps);
      for (const url of [
        '/v1/tax_statements/1999',
        '/v1/tax_statements/2101',
        '/v1/tax_statements/twenty',
        '/v1/tax_statements/2026.5',
        '/v1/tax_statements?from=2026-06-30&to=2026-01-01',
        '/v1/tax_statements?from=2026-01-01',
        '/v1/tax_statements?to=2026-01-01',
        '/v1/tax_statements',
        '/v1/tax_statements?from=2026-13-01&to=2026-12-31',
        '/v1/tax_statements?from=yesterday&to=today',
        '/v1/tax_statements?from=2026-1-1&to=2026-12-31',
        '/v1/tax_statements?from=20260101&to=20261231',
      ]) {
        const res = await call(env.app, 'GET', url, { key: donor.key });
        assert.deepEqual([res.status, res.body.code], [400, 'invalid_parameter'], url);
      }
      assert.equal((await call(env.app, 'GET', '/v1/tax_statements/2026')).status, 401, 'a key is needed');
      assert.deepEqual(await fingerprint(env.deps), before);
    });

    test("books and owners: a sandbox receipt is 404 to a live key and a live one to a test key; the sandbox's money is not on the live statement", async () => {
      const testKey = (await call(env.app, 'POST', '/v1/api_keys', { key: donor.key, body: { name: 'sandbox', mode: 'test' } })).body.key as string;
      await fundSandbox(env.app, testKey, 5000);
      const sandboxList = (await call(env.app, 'GET', '/v1/contributions', { key: testKey })).body.items as Array<{ id: number }>;
      const sandboxId = sandboxList[0]?.id ?? 0;
      assert.equal((await call(env.app, 'GET', `/v1/contributions/${sandboxId}/receipt`, { key: testKey })).status, 200, 'the sandbox has its receipt');
      assert.equal((await call(env.app, 'GET', `/v1/contributions/${sandboxId}/receipt`, { key: donor.key })).body.code, 'contribution_not_found');
      const liveId = ((await call(env.app, 'GET', '/v1/contributions', { key: donor.key })).body.items as Array<{ id: number }>)[0]?.id ?? 0;
      assert.equal((await call(env.app, 'GET', `/v1/contributions/${liveId}/receipt`, { key: testKey })).body.code, 'contribution_not_found');
      const other = await makeUser(env.deps);
      assert.equal((await call(env.app, 'GET', `/v1/contributions/${liveId}/receipt`, { key: other.key })).body.code, 'contribution_not_found');
      const live = (await call(env.app, 'GET', '/v1/tax_statements/2027', { key: donor.key })).body;
      assert.equal(live.total_contributions, 7, 'the sandbox deposit is not on the live statement');
      const sandbox = (await call(env.app, 'GET', '/v1/tax_statements/2027', { key: testKey })).body;
      assert.equal(sandbox.total_contributions, 5000);
      assert.equal((await call(env.app, 'GET', '/v1/tax_statements/2027', { key: other.key })).body.total_contributions, 0);
    });
  });
}
