// Invest now (docs/rules.md §19) on both engines: money a fund already holds is invested in its
// chosen portfolio, bought at the next valuation; nothing moves before. Refusals (no portfolio,
// bad amounts, more than the fund holds less what already waits) change nothing; the web form does
// the same through the same use case.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { accountOf, call, describeEachEngine, fingerprint, fund, makeUser } from './harness.ts';
import { createAdminToken } from '../src/modules/admin/index.ts';
import { runCheck } from '../src/modules/check/index.ts';
import { WebClient, textOf } from './web-client.ts';

describeEachEngine('invest now', (env) => {
  test('money the fund holds, bought at the next valuation; refusals change nothing', async () => {
    const { app, deps } = env();
    const operator = (await createAdminToken(deps, 'invest now', 'test')).token;
    const admin = (method: string, url: string, body?: unknown) =>
      call(app, method, `/admin/v1${url}`, { headers: { authorization: `Bearer ${operator}` }, ...(body === undefined ? {} : { body }) });
    const portfolio = (await admin('POST', '/portfolios', { name: 'Index', description: '', risk_level: 'medium', annual_fee_bps: 0, holdings: [{ symbol: 'VTI', weight: 100 }] }))
      .body.id as number;
    const donor = await makeUser(deps);
    await fund(deps, donor, 1_000_00);
    const invest = (body: unknown) => call(app, 'POST', '/v1/users/me/allocation/investments', { key: donor.key, body });

    let before = await fingerprint(deps);
    const none = await invest({ amount: 100 });
    assert.deepEqual([none.status, none.body.code], [409, 'portfolio_not_chosen']);
    assert.deepEqual(await fingerprint(deps), before, 'no portfolio: nothing written');

    assert.equal((await call(app, 'PUT', '/v1/users/me/allocation', { key: donor.key, body: { portfolio_id: portfolio, invest_share: 0 } })).status, 200);
    before = await fingerprint(deps);
    for (const [body, status, code] of [
      [{ amount: 0 }, 422, 'amount_below_minimum'],
      [{ amount: -5 }, 422, 'amount_invalid'],
      [{ amount: 1.005 }, 422, 'amount_invalid'],
      [{ amount: '100' }, 422, 'amount_invalid'],
      [{}, 422, 'validation_failed'],
      [{ amount: 100, extra: true }, 422, 'unknown_field'],
      [{ amount: 1_000.01 }, 409, 'insufficient_funds'],
    ] as const) {
      const res = await invest(body);
      assert.deepEqual([res.status, res.body.code], [status, code], JSON.stringify(body));
    }
    assert.deepEqual(await fingerprint(deps), before, 'bad amounts: nothing written');

    const made = await invest({ amount: 600 });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    assert.equal(made.body.pending_investment, 600);
    const balance = async () => (await call(app, 'GET', '/v1/users/me/balance', { key: donor.key })).body;
    assert.deepEqual([(await balance()).available_balance, (await balance()).portfolio_balance], [1000, 0], 'nothing moves before the valuation');
    // What waits to be invested is not free to invest again.
    before = await fingerprint(deps);
    const again = await invest({ amount: 500 });
    assert.deepEqual([again.status, again.body.code], [409, 'insufficient_funds']);
    assert.match(again.body.detail, /\$400\.00/);
    assert.deepEqual(await fingerprint(deps), before);

    // The web form, as a donor who signed up there: the same rules, through the same use case.
    const web = new WebClient(app);
    await web.get('/signup');
    await web.post('/signup', { name: 'Wendy Web', email: 'wendy@example.org', password: 'correct horse battery' });
    const wendy = await accountOf(deps, 'wendy@example.org');
    await fund(deps, wendy, 200_00);
    assert.doesNotMatch(textOf((await web.get('/invest')).body), /Invest money your fund holds/, 'offered once a portfolio is chosen');
    assert.equal((await web.post('/invest', { portfolio_id: String(portfolio), invest_share: '0' })).status, 303);
    assert.match(textOf((await web.get('/invest')).body), /Invest money your fund holds/);
    before = await fingerprint(deps);
    const refused = await web.post('/invest/now', { amount: '250' });
    assert.equal(refused.status, 409);
    assert.match(textOf(refused.body), /at most \$200\.00/);
    assert.match(refused.body, /data-problem="insufficient_funds"/);
    const empty = await web.post('/invest/now', { amount: '' });
    assert.equal(empty.status, 422);
    assert.deepEqual(await fingerprint(deps), before, 'refused on the web: nothing written');
    const saved = await web.post('/invest/now', { amount: '150' });
    assert.equal(saved.location, '/invest?done=investment_waiting');
    assert.match(textOf((await web.get('/invest')).body), /Waiting to be invested\s*\$150\.00 at the next valuation/);

    // The valuation buys them, at the first unit price of $10.
    const at = '2026-10-01T21:00:00.000Z';
    assert.equal((await admin('POST', '/prices', { prices: [{ symbol: 'VTI', price: '250', time: at }] })).status, 201);
    assert.equal((await admin('POST', '/valuations', { at })).status, 201);
    const after = await balance();
    assert.deepEqual([after.available_balance, after.portfolio_balance, after.amount], [400, 600, 1000]);
    const allocation = (await call(app, 'GET', '/v1/users/me/allocation', { key: donor.key })).body;
    assert.deepEqual([allocation.units, allocation.pending_investment], ['60.00000000', 0]);
    const wendys = await deps.db.selectFrom('ledger_accounts').select(['kind', 'balance_cents']).where('fund_id', '=', wendy.fund_id).execute();
    assert.deepEqual(Object.fromEntries(wendys.map((a) => [a.kind, Number(a.balance_cents)])), { pending_deposit: 0, available: 50_00, reserved: 0, portfolio: 150_00 });
    assert.deepEqual(
      (await runCheck(deps)).flatMap((c) => c.failures),
      [],
    );
  });
});
