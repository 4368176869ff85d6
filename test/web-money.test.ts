// Adding money in the web app (inject), on both engines: declare, read the
// instructions, cancel; the operator receives; the receipt page and its PDF;
// tax statements; CSV downloads parsed back; another donor's pages are 404.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'csv-parse/sync';
import { accountOf, call, engines, fingerprint, fund, makeNonProfit, openEnv, type TestEnv } from './harness.ts';
import { WebClient, textOf } from './web-client.ts';
import { createAdminToken } from '../src/modules/admin/index.ts';
import { pdfText } from './pdf.ts';

for (const { name: engine } of engines()) {
  describe(`adding money in the web app (${engine})`, () => {
    let env: TestEnv;
    let operator: string;
    let seq = 0;
    const admin = (method: string, url: string, body?: unknown) =>
      call(env.app, method, `/admin/v1${url}`, { headers: { authorization: `Bearer ${operator}` }, ...(body === undefined ? {} : { body }) });

    async function signedUp(name: string): Promise<{ browser: WebClient; email: string }> {
      const browser = new WebClient(env.app);
      const email = `money${++seq}@example.org`;
      await browser.signUp(name, email);
      await browser.get('/money');
      return { browser, email };
    }

    before(async () => {
      env = await openEnv(engine, {
        sponsor: {
          name: 'Lakeside Giving Fund',
          ein: '98-7654321',
          address: '9 Lake Rd, Madison WI',
          bank: 'Lake Bank, routing 075000022, account 555',
          brokerage: 'DTC 0141',
          crypto: 'BTC bc1qlake',
        },
      });
      operator = (await createAdminToken(env.deps, 'web money', 'test')).token;
      await makeNonProfit(env.deps, { ein: '261544963', name: 'Khan Academy' });
    });
    after(async () => env.close());

    test('declare a wire, see where to send it, the operator receives it, the donor reads and downloads the receipt', async () => {
      const { browser } = await signedUp('Rosa Parks');
      const declared = await browser.post('/money', { type: 'wire_payment', amount: '5,000' });
      assert.equal(declared.status, 303);
      const id = Number(/^\/money\/(\d+)\?/.exec(declared.location ?? '')?.[1]);
      const page = textOf((await browser.get(declared.location ?? '')).body);
      const reference = /reference (ALM-\w{4}-\w{4})/.exec(page)?.[1] ?? '';
      assert.match(page, /Send \$5,000\.00 to Lakeside Giving Fund \(EIN 98-7654321\): Lake Bank/);
      assert.ok(page.includes(`Put ${reference} in the transfer's reference`), page);

      const [found] = (await admin('GET', `/contributions/awaiting?reference=${reference}`)).body.items;
      assert.equal(found.id, id);
      assert.equal((await admin('POST', `/contributions/${id}/receive`, { units: '5000', valuation: '1' })).status, 200);
      assert.equal((await admin('POST', `/contributions/${id}/advance`, { status: 'success' })).status, 200);

      const money = textOf((await browser.get('/money')).body);
      assert.match(money, /Available to give: \$5,000\.00/);
      const detail = await browser.get(`/money/${id}`);
      const text = textOf(detail.body);
      for (const expected of [
        'Receipt R-',
        'Lakeside Giving Fund',
        'EIN 98-7654321',
        '9 Lake Rd, Madison WI',
        'Donor Rosa Parks',
        'Amount $5,000.00 (cash)',
        'No goods or services',
        '170(f)(18)',
      ])
        assert.ok(text.includes(expected), `${expected} in ${text}`);
      assert.doesNotMatch(text, /How to send it|Cancel this contribution/);
      const pdf = await env.app.inject({ method: 'GET', url: `/money/${id}/receipt.pdf`, headers: { cookie: browser.cookieHeader() } });
      assert.equal(pdf.statusCode, 200);
      assert.equal(pdf.headers['content-type'], 'application/pdf');
      assert.match(String(pdf.headers['content-disposition']), /attachment; filename="receipt-R-\d{6}\.pdf"/);
      const read = pdfText(pdf.rawPayload);
      assert.ok(read.includes('Donor: Rosa Parks') && read.includes('Amount: $5,000.00 (cash)'), read);

      // The year's statement, as PDF, from the page's link; and any period.
      const year = new Date().getUTCFullYear();
      const statement = await env.app.inject({ method: 'GET', url: `/money/statements/${year}.pdf`, headers: { cookie: browser.cookieHeader() } });
      assert.equal(statement.statusCode, 200);
      assert.ok(pdfText(statement.rawPayload).includes('Total contributions: $5,000.00'));
      const period = await env.app.inject({ method: 'GET', url: `/money/statement.pdf?from=${year}-01-01&to=${year}-12-31`, headers: { cookie: browser.cookieHeader() } });
      assert.equal(period.statusCode, 200);
      for (const bad of [
        `/money/statement.pdf?from=${year}-12-31&to=${year}-01-01`,
        '/money/statement.pdf?from=yesterday&to=today',
        '/money/statement.pdf',
        '/money/statements/1999.pdf',
      ])
        assert.equal((await browser.get(bad)).status, 400, bad);
      assert.equal((await browser.get('/money/statements/2026')).status, 404);
    });

    test('cancel a declaration from its page; then nothing to cancel; another donor sees none of it', async () => {
      const { browser } = await signedUp('Cancelling Donor');
      const declared = await browser.post('/money', { type: 'stock_payment', units: '4', symbol: 'VTI' });
      const id = Number(/^\/money\/(\d+)/.exec(declared.location ?? '')?.[1]);
      await browser.get(`/money/${id}`);
      const other = (await signedUp('Someone Else')).browser;
      const before = await fingerprint(env.deps);
      for (const path of [`/money/${id}`, `/money/${id}/receipt.pdf`, '/money/999999', '/money/abc']) assert.equal((await other.get(path)).status, 404, path);
      assert.equal((await other.post(`/money/${id}/cancel`, {})).status, 404);
      assert.equal((await browser.post(`/money/${id}/cancel`, {}, { csrf: false })).status, 403, 'no CSRF token');
      assert.deepEqual(await fingerprint(env.deps), before);
      assert.equal((await browser.get(`/money/${id}/receipt.pdf`)).status, 404, 'no receipt while it waits');

      await browser.get(`/money/${id}`);
      const cancelled = await browser.post(`/money/${id}/cancel`, {});
      assert.deepEqual([cancelled.status, cancelled.location], [303, '/money?done=contribution_cancelled']);
      assert.match(textOf((await browser.get(`/money/${id}`)).body), /Failed/);
      assert.equal((await browser.post(`/money/${id}/cancel`, {})).status, 409);
    });

    test('CSV downloads of donations and contributions parse back to the rows, formulas neutralised', async () => {
      const { browser, email } = await signedUp('=HYPERLINK("http://evil")');
      await fund(env.deps, await accountOf(env.deps, email), 100_000);
      await browser.get('/dashboard');
      for (const note of ['=1+1', '+cmd', '-2', '@SUM(A1)', 'plain']) {
        assert.equal((await browser.post('/dashboard/donations', { ein: '261544963', amount: '10', note, visibility: 'public' })).status, 303);
      }
      await browser.get('/money');
      await browser.post('/money', { type: 'crypto_payment', units: '0.5', symbol: 'BTC' });
      const dashboard = (await browser.get('/dashboard')).body;
      assert.match(dashboard, /href="\/dashboard\/donations\.csv"/);
      const donations = await browser.get('/dashboard/donations.csv');
      assert.equal(donations.status, 200);
      assert.match(String(donations.headers['content-type']), /^text\/csv/);
      const rows = parse(donations.body, { columns: true }) as Array<Record<string, string>>;
      assert.equal(rows.length, 5);
      assert.deepEqual(rows.map((r) => r.note).sort(), ["'+cmd", "'-2", "'=1+1", "'@SUM(A1)", 'plain'].sort());
      assert.match((await browser.get('/money')).body, /href="\/money\/contributions\.csv"/);
      const contributions = parse((await browser.get('/money/contributions.csv')).body, { columns: true }) as Array<Record<string, string>>;
      assert.deepEqual(
        contributions.map((c) => [c.type, c.status, c.units, c.currency]),
        [
          ['crypto_payment', 'waiting_for_funds', '0.5', 'BTC'],
          ['wire_payment', 'success', '1000.00', 'USD'],
        ],
      );
      const waiting = parse((await browser.get('/money/contributions.csv?status=waiting_for_funds')).body, { columns: true }) as unknown[];
      assert.equal(waiting.length, 1);
      assert.equal((await browser.get('/money/contributions.csv?status=lost')).status, 400);
      assert.equal((await browser.get('/dashboard/donations.csv?from=soon')).status, 400);
    });

    test('signed out, every money page sends the visitor to sign in and back', async () => {
      const visitor = new WebClient(env.app);
      for (const path of ['/money', '/money/1', '/money/1/receipt.pdf', '/money/contributions.csv', '/dashboard/donations.csv', '/money/statements/2026.pdf']) {
        const page = await visitor.get(path);
        assert.deepEqual([page.status, page.location], [303, `/signin?next=${encodeURIComponent(path)}`], path);
      }
    });
  });
}
