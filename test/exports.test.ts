// CSV exports on both engines (rules §13): every row matching the filters,
// parsed back with a CSV library equal to the API's rows, formulas neutralised.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'csv-parse/sync';
import { call, engines, fund, makeNonProfit, makeUser, openEnv, type TestEnv, type TestUser } from './harness.ts';

for (const { name: engine } of engines()) {
  describe(`CSV exports on ${engine}`, () => {
    let env: TestEnv;
    let donor: TestUser;
    const csv = async (url: string, key = donor.key) => env.app.inject({ method: 'GET', url, headers: { 'x-api-key': key, accept: 'text/csv' } });

    before(async () => {
      env = await openEnv(engine);
      await makeNonProfit(env.deps, { ein: '261544963', name: 'Vermont Foodbank' });
      donor = await makeUser(env.deps);
      await fund(env.deps, donor, 1_000_000);
      // A formula start after a separator runs too where ';' separates cells (Excel in many locales).
      const notes = ['=HYPERLINK("http://evil")', '+1+1', '-2', '@SUM(A1)', 'plain, with "quotes"', 'x;=1+1', 'line\n=2+2'];
      for (let i = 0; i < 130; i++) {
        const res = await call(env.app, 'POST', '/v1/donations', { key: donor.key, body: { ein: '261544963', amount: 10 + (i % 7), note: notes[i % notes.length] } });
        assert.equal(res.status, 201);
      }
      // A tab is refused in new text (shared/text.ts); one kept from before is still written as text.
      const oldest = await env.deps.db.selectFrom('donations').select('id').where('user_id', '=', donor.user_id).orderBy('id').limit(1).executeTakeFirstOrThrow();
      await env.deps.db.updateTable('donations').set({ note: '\tTabbed' }).where('id', '=', oldest.id).execute();
      const cancelled = await call(env.app, 'GET', '/v1/donations?per_page=1', { key: donor.key });
      await call(env.app, 'DELETE', `/v1/donations/${cancelled.body.items[0].id}`, { key: donor.key });
      await call(env.app, 'POST', '/v1/contributions', { key: donor.key, body: { type: 'check_payment', amount: 75 } });
    });
    after(async () => env.close());

    test("donations: every row (not one page), equal to the API's, newest first, formulas neutralised", async () => {
      const res = await csv('/v1/donations');
      assert.equal(res.statusCode, 200);
      assert.match(String(res.headers['content-type']), /^text\/csv/);
      assert.match(String(res.headers['content-disposition']), /attachment; filename="donations.csv"/);
      const rows = parse(res.body, { columns: true }) as Array<Record<string, string>>;
      assert.equal(rows.length, 130, 'every donation, not a page');
      const api: Array<{ id: number; status: string; amount: number }> = [];
      for (let page = 1; page <= 2; page++) api.push(...(await call(env.app, 'GET', `/v1/donations?per_page=100&page=${page}`, { key: donor.key })).body.items);
      assert.deepEqual(
        rows.map((r) => [Number(r.id), r.status, Number(r.amount)]),
        api.map((d) => [d.id, d.status, d.amount]),
      );
      const notes = new Set(rows.map((r) => r.note));
      for (const expected of [`'=HYPERLINK("http://evil")`, "'+1+1", "'-2", "'@SUM(A1)", 'plain, with "quotes"', "'\tTabbed", "x;'=1+1", "line\n'=2+2"])
        assert.ok(notes.has(expected), expected);
      // Read as a ';'-separated file, as such a spreadsheet would: the cell stays one quoted cell.
      // Read as a ';'-separated file, line by line, as such a spreadsheet would: no cell starts a formula.
      const cells = res.body.split(/\r?\n/).flatMap((line) => line.split(/[;\t]/));
      const formulas = cells.filter((cell) => /^ *"? *[=+\-@]/.test(cell));
      assert.deepEqual(formulas, [], 'no cell of the file split on ; or tabs starts a formula');
      assert.ok(rows.every((r) => r.ein === '261544963' && r.non_profit === 'Vermont Foodbank'));
    });

    test('filters: status, from and to; a bad filter is 400 invalid_parameter', async () => {
      const cancelled = parse((await csv('/v1/donations?status=not_completed')).body, { columns: true }) as Array<Record<string, string>>;
      assert.deepEqual(
        cancelled.map((r) => r.status),
        ['not_completed'],
      );
      const today = new Date().toISOString().slice(0, 10);
      assert.equal((parse((await csv(`/v1/donations?from=${today}&to=${today}`)).body, { columns: true }) as unknown[]).length, 130);
      assert.equal((parse((await csv('/v1/donations?to=2000-01-01')).body, { columns: true }) as unknown[]).length, 0);
      for (const q of ['status=lost', 'from=yesterday', 'to=2026-13-45']) {
        const bad = await csv(`/v1/donations?${q}`);
        assert.equal(bad.statusCode, 400, q);
        assert.equal(JSON.parse(bad.body).code, 'invalid_parameter', q);
      }
    });

    test("contributions: the caller's only, with references; another donor exports only their own", async () => {
      const rows = parse((await csv('/v1/contributions')).body, { columns: true }) as Array<Record<string, string>>;
      assert.equal(rows.length, 2, 'the funding one and the declared check');
      assert.ok(rows.some((r) => /^ALM-/.test(r.reference ?? '') && r.status === 'waiting_for_funds' && r.amount_usd === '75'));
      const other = await makeUser(env.deps);
      assert.equal((parse((await csv('/v1/donations', other.key)).body, { columns: true }) as unknown[]).length, 0);
    });
  });
}
