// Paying charities (docs/rules.md §17) on both engines: twenty donations to
// four organisations (one with bank details, one without, one revoked after
// the donations were made, one a close name match on the sanctions list) ->
// one run -> one ACH payment with its addenda, one check, the revoked one's
// donations rejected with their money back, the close match held; then an ACH
// return (R03) and a stale check, each giving every grant back with an e-mail;
// `almoner check` after every step. The NACHA file is read back by a parser
// written here from the record layouts, not the code that wrote it.
import { describe, test, before, after } from 'node:test';
import { ACH_RETURNS, addDays, bankingDayFrom } from '../src/modules/payments/index.ts';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { engines, openEnv, makeUser, fund, makeNonProfit, call, fingerprint, TestClock, type TestEnv, type TestUser, TEST_ACH, assertLedgerBalanced } from './harness.ts';
import { createAdminToken } from '../src/modules/admin/index.ts';
import { addAccount } from '../src/modules/accounts/index.ts';
import { readListFile, recordList, screenDirectory } from '../src/modules/diligence/index.ts';
import { runCheck } from '../src/modules/check/index.ts';
import { runNotify } from '../src/modules/notify/index.ts';
import { pdfText } from './pdf.ts';
import { startJobs } from '../src/jobs.ts';
import { NO_IRS_DETAILS } from '../src/modules/nonprofits/nonprofits.store.ts';

const FIXTURES = new URL('./fixtures/diligence/', import.meta.url).pathname;
const ACH = TEST_ACH;
const PAYMENTS = { ach: ACH, checkAccount: '000987654321', checkFirstNumber: 5001, checkStaleDays: 180, payeeCoolingOffDays: 7, payeeKey: randomBytes(32) };

/** A NACHA file read back from the record layouts: every record 94 characters, blocked by 10, controls that add up. */
function readAch(text: string) {
  const lines = text.split('\r\n');
  assert.equal(lines.pop(), '', 'CRLF after the last record');
  for (const l of lines) assert.equal(l.length, 94, `a record of ${l.length}: ${l}`);
  assert.equal(lines.length % 10, 0, 'blocked by 10');
  const kinds = lines.map((l) => l[0]);
  assert.deepEqual([kinds[0], kinds[1]], ['1', '5']);
  const entries: Array<{ code: string; routing: string; account: string; cents: number; name: string; reference: string; trace: string; addenda: string }> = [];
  for (let i = 2; kinds[i] === '6'; i += 2) {
    const e = lines[i] as string;
    const a = lines[i + 1] as string;
    assert.equal(a[0], '7', 'each entry has its addenda');
    assert.equal(e[78], '1', 'the addenda indicator is set');
    assert.equal(a.slice(1, 3), '05');
    assert.equal(a.slice(87, 94), e.slice(87, 94), "the addenda names its entry's sequence");
    entries.push({
      code: e.slice(1, 3),
      routing: e.slice(3, 12),
      account: e.slice(12, 29).trim(),
      cents: Number(e.slice(29, 39)),
      reference: e.slice(39, 54).trim(),
      name: e.slice(54, 76).trim(),
      trace: e.slice(79, 94),
      addenda: a.slice(3, 83).trim(),
    });
  }
  const batch = lines[2 + entries.length * 2] as string;
  const file = lines[3 + entries.length * 2] as string;
  assert.equal(batch[0], '8');
  assert.equal(file[0], '9');
  const hash = entries.reduce((n, e) => n + Number(e.routing.slice(0, 8)), 0) % 10_000_000_000;
  const total = entries.reduce((n, e) => n + e.cents, 0);
  assert.equal(Number(batch.slice(4, 10)), entries.length * 2, 'entries and addenda counted');
  assert.equal(Number(batch.slice(10, 20)), hash, 'the entry hash');
  assert.equal(Number(batch.slice(20, 32)), 0, 'no debits');
  assert.equal(Number(batch.slice(32, 44)), total, 'the credits');
  assert.equal(Number(file.slice(1, 7)), 1, 'one batch');
  assert.equal(Number(file.slice(7, 13)), lines.length / 10, 'the block count');
  assert.equal(Number(file.slice(13, 21)), entries.length * 2);
  assert.equal(Number(file.slice(21, 31)), hash);
  assert.equal(Number(file.slice(43, 55)), total);
  for (const l of lines.slice(4 + entries.length * 2)) assert.equal(l, '9'.repeat(94), 'filled with 9s');
  const header = lines[0] as string;
  return {
    header: { destination: header.slice(3, 13).trim(), origin: header.slice(13, 23), priority: header.slice(1, 3), size: header.slice(34, 37) },
    batchHeader: lines[1] as string,
    entries,
  };
}

for (const { name: engine } of engines()) {
  describe(`paying charities on ${engine}`, () => {
    let env: TestEnv;
    let donors: TestUser[];
    let operator: string;
    const clock = new TestClock('2026-11-20T15:00:00.000Z');
    const admin = (method: string, url: string, body?: unknown, auth = operator) =>
      call(env.app, method, `/admin/v1${url}`, { headers: auth === '' ? {} : { authorization: `Bearer ${auth}` }, ...(body === undefined ? {} : { body }) });
    const checked = (step: string) => assertLedgerBalanced(env.deps, step);
    const statuses = async (ein: string) =>
      (await env.deps.db.selectFrom('donations as d').innerJoin('non_profits as n', 'n.id', 'd.non_profit_id').select('d.status').where('n.ein', '=', ein).execute()).map(
        (d) => d.status,
      );
    const available = async (u: TestUser) =>
      Number(
        (await env.deps.db.selectFrom('ledger_accounts').select('balance_cents').where('fund_id', '=', u.fund_id).where('kind', '=', 'available').executeTakeFirstOrThrow())
          .balance_cents,
      );
    const moved = (before: number[], after: number[]) => after.reduce((n, a, i) => n + a - (before[i] as number), 0);
    let runId = 0;
    let achPayment = 0;
    let checkPayment = 0;

    before(async () => {
      env = await openEnv(engine, { payments: PAYMENTS, retentionIntervalMs: 50, schedulerIntervalMs: 0, notifyIntervalMs: 0, sandboxTickMs: 0 }, { clock });
      operator = (await createAdminToken(env.deps, 'payments test', 'test')).token;
      donors = [await makeUser(env.deps), await makeUser(env.deps)];
      for (const [i, d] of donors.entries()) {
        await fund(env.deps, d, 10_000_00);
        await addAccount(env.deps, d.user_id, `donor${i}@example.org`, 'a long enough password');
      }
      for (const [ein, name] of [
        ['261544963', 'Vermont Foodbank'],
        ['030219309', 'Green Mountain Arts'],
        ['111111111', 'Old Town Relief Society'],
        ['888888889', 'Holy Land Relief Fund Friends'],
      ]) {
        await makeNonProfit(env.deps, { ein: ein as string, name: name as string, ...NO_IRS_DETAILS, foundation: '15', street: '1 Main St', zip: '05401' });
      }
    });
    after(async () => env.close());

    test('bank details: checked, sealed at rest, shown masked, audited; ACH waits out the cooling-off', async () => {
      const before = await fingerprint(env.deps);
      for (const [body, field] of [
        [{ ein: '261544963', routing: '091000018', account: '12345678', account_type: 'checking', holder: 'Vermont Foodbank' }, 'routing'],
        [{ ein: '261544963', routing: '091000019', account: '12-ab', account_type: 'checking', holder: 'Vermont Foodbank' }, 'account'],
        [{ ein: '261544963', routing: '091000019', account: '12345678', account_type: 'checking', holder: ' ' }, 'holder'],
      ] as const) {
        const res = await admin('POST', '/payee_accounts', body);
        assert.deepEqual([res.status, res.body.code, res.body.errors?.[0]?.field], [422, 'validation_failed', field]);
      }
      assert.equal(
        (await admin('POST', '/payee_accounts', { ein: '999999999', routing: '091000019', account: '12345678', account_type: 'checking', holder: 'X' })).body.code,
        'non_profit_not_found',
      );
      assert.deepEqual(await fingerprint(env.deps), before);
      const set = await admin('POST', '/payee_accounts', {
        ein: '26-1544963',
        routing: '091000019',
        account: '0001234-5678',
        account_type: 'checking',
        holder: 'Vermont Foodbank',
      });
      assert.equal(set.status, 201);
      assert.deepEqual(set.body, { id: set.body.id, status: 'active', non_profit: 'Vermont Foodbank', routing: '091000019', account: '••••5678', usable_from: '2026-11-27' });
      const stored = await env.deps.db.selectFrom('payee_accounts').selectAll().executeTakeFirstOrThrow();
      assert.ok(!stored.account_sealed.includes('12345678'), 'the number is sealed');
      const audit = await env.deps.db.selectFrom('audit_log').select(['before', 'after']).where('action', '=', 'payee_account.set').executeTakeFirstOrThrow();
      assert.ok(!String(audit.after).includes('12345678') && String(audit.after).includes('••••5678'), 'the audit log shows it masked');
    });

    test('twenty donations to four organisations; one revoked, one a close match; a run pays two, rejects one, holds one', async () => {
      for (let i = 0; i < 20; i++) {
        const ein = ['261544963', '030219309', '111111111', '888888889'][i % 4] as string;
        const choices = i === 0 ? { share: 'name_and_email', designation: 'School lunches', dedication: 'In honour of Grace' } : i === 4 ? { share: 'anonymous' } : {};
        const donor = donors[i % 2] as TestUser;
        // One of the foodbank's is a grant at its own checkout (rules §24), with the provider's tracking id.
        const res =
          i === 8
            ? await call(env.app, 'POST', '/v1/dafpay/grants', { key: donor.key, body: { fund_id: donor.fund_id, ein, amount: 10 + i, tracking_id: 'chk-8f2e' } })
            : await call(env.app, 'POST', '/v1/donations', { key: donor.key, body: { ein, amount: 10 + i, ...choices } });
        assert.equal(res.status, 201, JSON.stringify(res.body));
      }
      const approved = await admin('POST', '/donations/batch', { event: 'approve', status: 'scheduled' });
      assert.equal(approved.body.done.length, 20);
      await checked('approval');
      await recordList(env.deps, readListFile('revocations', join(FIXTURES, 'revocations.txt')), '2026-11-20', 'test');
      await recordList(env.deps, readListFile('sdn', join(FIXTURES, 'sdn.csv')), '2026-11-20', 'test');
      await screenDirectory(env.deps);
      const before = await Promise.all(donors.map(available));
      // The run opens a day after the foodbank's details waited out their cooling-off (counted to today, not the pay date).
      clock.advance(7 * 86_400_000);
      const opened = await admin('POST', '/payment_runs', { pay_date: '2026-12-01' });
      assert.equal(opened.status, 201);
      runId = opened.body.run.id;
      const payments = opened.body.run.payments as Array<{
        id: number;
        ein: string;
        method: string;
        amount: string;
        grants: number;
        check_number: number | null;
        account: string | null;
      }>;
      assert.deepEqual(
        payments.map((p) => [p.ein, p.method, p.grants, p.amount, p.check_number, p.account]),
        [
          ['261544963', 'ach', 5, '90.00', null, '••••5678'],
          ['030219309', 'check', 5, '95.00', 5001, null],
        ],
      );
      [achPayment, checkPayment] = payments.map((p) => p.id) as [number, number];
      assert.deepEqual(opened.body.rejected, [{ ein: '111111111', name: 'Old Town Relief Society', code: 'non_profit_revoked', donations: 5, amount: '100.00' }]);
      assert.deepEqual(opened.body.held, [{ ein: '888888889', name: 'Holy Land Relief Fund Friends', donations: 5, amount: '105.00' }]);
      assert.deepEqual(await statuses('111111111'), Array(5).fill('rejected'));
      assert.deepEqual(await statuses('888888889'), Array(5).fill('approved'), 'held: they wait for the review');
      const after = await Promise.all(donors.map(available));
      assert.equal(moved(before, after), 100_00, "the revoked organisation's donations gave their money back");
      await checked('opening the run');
      const again = await admin('POST', '/payment_runs', { pay_date: '2026-12-01' });
      assert.deepEqual([again.status, again.body.code], [409, 'payment_run_exists']);
      const untouched = await fingerprint(env.deps);
      // Bad pay dates (today is 2026-11-27): not a date, past, too far ahead, a Saturday, Thanksgiving.
      for (const day of ['2026-13-01', '2026-11-26', '2027-01-04', '2026-12-05', '2027-11-25']) {
        const bad = await admin('POST', '/payment_runs', { pay_date: day });
        assert.deepEqual([bad.status, bad.body.code, bad.body.errors?.[0]?.field], [422, 'validation_failed', 'pay_date'], day);
      }
      assert.deepEqual(await fingerprint(env.deps), untouched, 'a refused run changes nothing');
    });

    test('the NACHA file, the check register and the positive-pay file read back', async () => {
      const ach = await admin('GET', `/payment_runs/${runId}/ach`);
      assert.equal(ach.status, 200);
      const file = readAch(String(ach.body));
      assert.deepEqual(file.header, { destination: '091000019', origin: '1234567890', priority: '01', size: '094' });
      assert.equal(file.batchHeader.slice(50, 53), 'CCD');
      assert.equal(file.batchHeader.slice(69, 75), '261201', 'effective on the pay date');
      // The day's first file is A; its entry's trace number ends in its payment's id, unique across files.
      assert.equal(String(ach.body).slice(33, 34), 'A', 'File ID Modifier');
      assert.equal(file.entries.length, 1);
      const [entry] = file.entries;
      assert.equal(Number(entry?.trace.slice(8)), achPayment, 'the trace sequence is the payment id');
      assert.deepEqual(
        { ...entry, trace: entry?.trace.slice(0, 8) },
        {
          code: '22',
          routing: '091000019',
          account: '00012345678',
          cents: 90_00,
          reference: `PAYMENT ${achPayment}`,
          name: 'VERMONT FOODBANK',
          trace: '01100001',
          addenda: entry?.addenda,
        },
      );
      const grantIds = (await env.deps.db.selectFrom('payment_grants').select('donation_id').where('payment_id', '=', achPayment).orderBy('donation_id').execute()).map(
        (g) => g.donation_id,
      );
      assert.equal(entry?.addenda, `GRANTS 5 TRACKING CHK-8F2E DONATIONS ${grantIds.join(' ')}`, "the addenda names its grants, a checkout's tracking id first");
      const register = parse(String((await admin('GET', `/payment_runs/${runId}/checks`)).body), { columns: true }) as Array<Record<string, string>>;
      assert.deepEqual(
        register.map((r) => [r.check_number, r.pay_date, r.payee, r.amount, r.payment_id, r.grants]),
        [['5001', '2026-12-01', 'Green Mountain Arts', '95.00', String(checkPayment), '5']],
      );
      assert.match(register[0]?.address ?? '', /^1 Main St\nBurlington, VT 05401$/);
      const positive = parse(String((await admin('GET', `/payment_runs/${runId}/positive_pay`)).body), { columns: true }) as Array<Record<string, string>>;
      assert.deepEqual(positive, [
        { account: '000987654321', check_number: '5001', issue_date: '2026-12-01', amount: '95.00', payee: 'Green Mountain Arts', issue_void: 'I' },
        // The control totals: the amount of the checks to honour, and how many of each kind.
        { account: '000987654321', check_number: 'TOTAL', issue_date: '2026-12-01', amount: '95.00', payee: '1 issued, 0 voided (0.00)', issue_void: '' },
      ]);
      const unconfigured = { ...env.deps, config: { ...env.deps.config, payments: { ...PAYMENTS, ach: { ...ACH, companyId: '', odfiRouting: '123' } } } };
      const { achFileOf } = await import('../src/modules/payments/index.ts');
      await assert.rejects(
        achFileOf(unconfigured, 'live', runId),
        (e: Error & { code?: string }) => e.code === 'ach_not_configured' && /ACH_ODFI_ROUTING.*ACH_COMPANY_ID/.test(e.message),
      );
    });

    test("remittance advice: one letter per payment, each grant with its donor as they chose, its designation and dedication, a checkout's tracking id", async () => {
      const res = await env.app.inject({ method: 'GET', url: `/admin/v1/payments/${achPayment}/remittance`, headers: { authorization: `Bearer ${operator}` } });
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['content-type'], 'application/pdf');
      const text = pdfText(res.rawPayload).replace(/\s+/g, ' ');
      for (const expected of [
        `Remittance advice: payment ${achPayment}`,
        'To: Vermont Foodbank, EIN 26-1544963',
        'Amount: $90.00, by ACH credit',
        'Grants: 5',
        'donor0@example.org',
        'For: School lunches',
        'Dedication: In honour of Grace',
        'An anonymous donor',
        'Checkout tracking id: chk-8f2e',
      ]) {
        assert.ok(text.includes(expected), `${expected} in: ${text}`);
      }
      const whole = await env.app.inject({ method: 'GET', url: `/admin/v1/payment_runs/${runId}/remittances`, headers: { authorization: `Bearer ${operator}` } });
      const all = pdfText(whole.rawPayload).replace(/\s+/g, ' ');
      assert.ok(all.includes(`payment ${achPayment}`) && all.includes(`payment ${checkPayment}`) && all.includes('by check number 5001'), all);
      assert.equal(whole.headers['x-parts'], '1');
      assert.equal((await admin('GET', '/payments/999999/remittance')).body.code, 'payment_not_found');
      // A run of many letters is several files, each its own letters (here one letter a file).
      const { runRemittances } = await import('../src/modules/payments/index.ts');
      const parts = await Promise.all([1, 2].map((part) => runRemittances(env.deps, 'live', runId, { part, perFile: 1 })));
      assert.deepEqual(
        parts.map((f) => [f.part, f.parts, f.letters, pdfText(Buffer.from(f.pdf)).includes(`payment ${f.part === 1 ? achPayment : checkPayment}`)]),
        [
          [1, 2, 1, true],
          [2, 2, 1, true],
        ],
      );
      for (const bad of [0, 3, 1.5])
        await assert.rejects(runRemittances(env.deps, 'live', runId, { part: bad, perFile: 1 }), (e: Error & { code?: string }) => e.code === 'validation_failed');
      const beyond = await admin('GET', `/payment_runs/${runId}/remittances?part=2`);
      assert.deepEqual([beyond.status, beyond.body.code], [422, 'validation_failed']);
      // A client that went away stops the drawing between letters.
      await assert.rejects(runRemittances(env.deps, 'live', runId, { signal: AbortSignal.abort(new Error('gone')) }), /gone/);
    });

    test('submitted: ACH grants completed, checks mailed, each once; the donors are e-mailed', async () => {
      const submitted = await admin('POST', `/payment_runs/${runId}/submit`, {});
      assert.equal(submitted.status, 200);
      assert.equal(submitted.body.status, 'submitted');
      assert.deepEqual(await statuses('261544963'), Array(5).fill('completed'));
      assert.deepEqual(await statuses('030219309'), Array(5).fill('check_mailed'));
      const twice = await admin('POST', `/payment_runs/${runId}/submit`, {});
      assert.deepEqual([twice.status, twice.body.code], [409, 'payment_run_submitted']);
      await checked('submitting the run');
      await runNotify(env.deps);
      const kinds = (await env.deps.db.selectFrom('mail_outbox').select('kind').execute()).map((m) => m.kind);
      assert.ok(kinds.filter((k) => k === 'donation_completed').length >= 1 && kinds.filter((k) => k === 'donation_check_mailed').length >= 1, kinds.join(','));
    });

    test("an ACH return (R03), read from the bank's return file, gives every grant back, with an e-mail; an outcome is recorded once", async () => {
      const before = await Promise.all(donors.map(available));
      for (const [url, body, status, code] of [
        [`/payments/${achPayment}/return`, { return_code: 'R99' }, 422, 'validation_failed'],
        [`/payments/${achPayment}/cash`, {}, 409, 'invalid_transition'],
        [`/payments/${checkPayment}/return`, { return_code: 'R03' }, 409, 'invalid_transition'],
        ['/payments/999999/return', { return_code: 'R03' }, 404, 'payment_not_found'],
      ] as const) {
        const res = await admin('POST', url, body);
        assert.deepEqual([res.status, res.body.code], [status, code], url);
      }
      // The bank's return file: the returned entry as it was sent, then its return addenda (written here from the layout).
      const entry = String((await admin('GET', `/payment_runs/${runId}/ach`)).body)
        .split('\r\n')
        .find((l) => l.startsWith('6')) as string;
      const addenda = (code: string) => `799${code}${entry.slice(79, 94)}${' '.repeat(6)}09100001${' '.repeat(44)}${'0'.repeat(15)}`;
      assert.equal(addenda('R03').length, 94);
      const untouched = await fingerprint(env.deps);
      for (const [file, line] of [
        [`${entry}\r\n${addenda('RXX')}\r\n`, 'line 2'],
        [`${entry}\r\n`, 'line 1'],
        [`${entry.slice(0, 29)}0000000001${entry.slice(39)}\r\n${addenda('R03')}\r\n`, 'line 1'],
        [`${entry.slice(0, 39)}${'PAYMENT 999999'.padEnd(15)}${entry.slice(54)}\r\n${addenda('R03')}\r\n`, 'line 1'],
        ['not a NACHA file', 'line 1'],
      ] as const) {
        const refused = await admin('POST', '/payments/returns', { file });
        assert.deepEqual([refused.status, refused.body.code, refused.body.errors?.[0]?.field], [422, 'ach_returns_malformed', line], file);
      }
      assert.deepEqual(await fingerprint(env.deps), untouched, 'a refused return file records nothing');
      const returnFile = `${entry}\r\n${addenda('R03')}\r\n`;
      const returned = await admin('POST', '/payments/returns', { file: returnFile });
      assert.deepEqual(returned.body.items, [{ payment_id: achPayment, code: 'R03', recorded: true }]);
      assert.equal((await admin('GET', `/payment_runs/${runId}`)).body.payments[0].return_code, 'R03');
      assert.deepEqual(await statuses('261544963'), Array(5).fill('not_completed'));
      const after = await Promise.all(donors.map(available));
      assert.equal(moved(before, after), 90_00, 'every cent back');
      const again = await admin('POST', `/payments/${achPayment}/return`, { return_code: 'R03' });
      assert.deepEqual([again.status, again.body.code], [409, 'invalid_transition']);
      assert.deepEqual(
        (await admin('POST', '/payments/returns', { file: returnFile })).body.items,
        [{ payment_id: achPayment, code: 'R03', recorded: false }],
        'the same file again records nothing twice',
      );
      await checked('the ACH return');
      await runNotify(env.deps);
      const returnedMail = await env.deps.db.selectFrom('mail_outbox').select(['subject', 'text']).where('kind', '=', 'donation_returned').execute();
      assert.equal(returnedMail.length, 5);
      assert.match(returnedMail[0]?.text ?? '', /R03: no account, or the account could not be found/);
    });

    test('a check not cashed in CHECK_STALE_DAYS is voided: every grant back; a voided check is not cashed', async () => {
      const { voidStaleChecks } = await import('../src/modules/payments/index.ts');
      assert.deepEqual(await voidStaleChecks(env.deps, 'live', 'test'), [], 'not stale yet');
      const before = await Promise.all(donors.map(available));
      // Counted from the check's date (2026-12-01), not from when it was mailed: 180 days after is 2027-05-30.
      clock.set('2027-05-30T12:00:00.000Z');
      assert.deepEqual(await voidStaleChecks(env.deps, 'live', 'test'), [], 'stale the day after its 180th');
      for (const asOf of ['2027-05-31', '2027-5-1', 'soon']) {
        await assert.rejects(voidStaleChecks(env.deps, 'live', 'test', asOf), (e: Error & { code?: string }) => e.code === 'validation_failed', asOf);
      }
      clock.set('2027-05-31T12:00:00.000Z');
      // Every server looks for stale checks (its jobs, each RETENTION_INTERVAL_MS).
      const stop = startJobs(env.platform);
      try {
        for (let i = 0; i < 400 && (await statuses('030219309'))[0] !== 'not_completed'; i++) await new Promise((resolve) => setTimeout(resolve, 10));
      } finally {
        stop();
      }
      assert.deepEqual(await voidStaleChecks(env.deps, 'live', 'operator:test'), [], 'voided once');
      const voided = await env.deps.db.selectFrom('audit_log').select('actor').where('action', '=', 'payment.void').where('object_id', '=', checkPayment).execute();
      assert.deepEqual(voided, [{ actor: 'system:stale-checks' }]);
      assert.deepEqual(await statuses('030219309'), Array(5).fill('not_completed'));
      const after = await Promise.all(donors.map(available));
      assert.equal(moved(before, after), 95_00);
      assert.equal((await admin('POST', `/payments/${checkPayment}/cash`, {})).body.code, 'invalid_transition');
      await checked('voiding the stale check');
      await runNotify(env.deps);
      assert.equal((await env.deps.db.selectFrom('mail_outbox').select('id').where('kind', '=', 'donation_returned').execute()).length, 10);
      // The positive-pay file now tells the bank to refuse it.
      const positive = parse(String((await admin('GET', `/payment_runs/${runId}/positive_pay`)).body), { columns: true }) as Array<Record<string, string>>;
      assert.deepEqual(
        positive.map((r) => [r.check_number, r.amount, r.issue_void]),
        [
          ['5001', '95.00', 'V'],
          ['TOTAL', '0.00', ''],
        ],
      );
    });

    test('the bank pays the voided check anyway: an exception the books carry until an operator resolves it', async () => {
      const today = clock.now().toISOString().slice(0, 10);
      const file = `check_number,amount,paid_date\n5001,95.00,${today}\n`;
      const paid = await admin('POST', '/payments/checks_paid', { file });
      assert.equal(paid.status, 200, JSON.stringify(paid.body));
      assert.deepEqual(paid.body.items, [{ payment_id: checkPayment, check_number: 5001, recorded: true, status: 'voided', exception: true }]);
      assert.deepEqual(await statuses('030219309'), Array(5).fill('not_completed'), 'the donors keep their money back');
      // almoner check reports it until it is resolved; the same file again records it once.
      const failing = (await runCheck(env.deps)).flatMap((c) => c.failures);
      assert.equal(failing.length, 1, failing.join('\n'));
      assert.match(failing[0] ?? '', new RegExp(`payment ${checkPayment} \\(live\\): the bank paid its voided check \\(9500 cents`));
      assert.equal((await admin('POST', '/payments/checks_paid', { file })).body.items[0].recorded, false, 'once');
      const listed = (await admin('GET', '/payment_exceptions')).body.items as Array<{ id: number; payment_id: number; resolution: string | null; amount: string }>;
      assert.deepEqual(
        listed.map((x) => [x.payment_id, x.amount, x.resolution]),
        [[checkPayment, '95.00', null]],
      );
      const id = listed[0]?.id as number;
      const before = await fingerprint(env.deps);
      for (const [body, status, code] of [
        [{ resolution: 'forgiven', note: 'x' }, 422, 'validation_failed'],
        [{ resolution: 'recovered', note: '' }, 422, 'validation_failed'],
      ] as const) {
        const res = await admin('POST', `/payment_exceptions/${id}/resolve`, body);
        assert.deepEqual([res.status, res.body.code], [status, code]);
      }
      assert.deepEqual([(await admin('POST', '/payment_exceptions/999999/resolve', { resolution: 'recovered', note: 'x' })).body.code], ['payment_exception_not_found']);
      assert.deepEqual(await fingerprint(env.deps), before, 'nothing changed');
      const resolved = await admin('POST', `/payment_exceptions/${id}/resolve`, { resolution: 'recovered', note: 'the bank reversed it on 12-02' });
      assert.equal(resolved.status, 200, JSON.stringify(resolved.body));
      assert.equal((await admin('POST', `/payment_exceptions/${id}/resolve`, { resolution: 'charged', note: 'again' })).body.code, 'payment_exception_resolved');
      await checked('resolving the exception');
      const audit = await env.deps.db.selectFrom('audit_log').select('action').where('action', 'like', 'payment.exception%').orderBy('id').execute();
      assert.deepEqual(
        audit.map((a) => a.action),
        ['payment.exception', 'payment.exception_resolved'],
      );
    });

    test('operators only; the sandbox book sees none of the live runs', async () => {
      for (const [method, url] of [
        ['GET', '/payment_runs'],
        ['POST', '/payment_runs'],
        ['GET', `/payment_runs/${runId}`],
        ['GET', `/payment_runs/${runId}/ach`],
        ['GET', `/payment_runs/${runId}/checks`],
        ['GET', `/payment_runs/${runId}/positive_pay`],
        ['POST', `/payment_runs/${runId}/submit`],
        ['POST', `/payments/${achPayment}/return`],
        ['POST', `/payments/${checkPayment}/cash`],
        ['POST', `/payments/${checkPayment}/void`],
        ['POST', '/payee_accounts'],
        ['POST', '/payments/returns'],
        ['GET', `/payments/${achPayment}/remittance`],
        ['GET', `/payment_runs/${runId}/remittances`],
      ] as const) {
        assert.equal((await admin(method, url, method === 'POST' ? {} : undefined, '')).status, 401, `${method} ${url} without a token`);
        const asDonor = await call(env.app, method, `/admin/v1${url}`, { key: (donors[0] as TestUser).key, ...(method === 'POST' ? { body: {} } : {}) });
        assert.equal(asDonor.status, 401, `${method} ${url} with a donor's key`);
      }
      assert.equal((await admin('GET', `/payment_runs/${runId}?book=test`)).body.code, 'payment_run_not_found');
      assert.deepEqual((await admin('GET', '/payment_runs?book=test')).body.items, []);
    });

    test('two runs opened at once never pay a donation twice', async () => {
      const pending = await admin('GET', '/sanction_reviews');
      assert.equal((await admin('POST', `/sanction_reviews/${pending.body.items[0].id}/clear`, { note: 'not the listed party' })).status, 200);
      const reviews = await admin('GET', '/sanction_reviews');
      assert.deepEqual(reviews.body.items, []);
      const results = await Promise.all([admin('POST', '/payment_runs', { pay_date: '2027-06-01' }), admin('POST', '/payment_runs', { pay_date: '2027-06-02' })]);
      // The other run lost the race for the donations, or opened after the first took them all: nothing left to pay.
      for (const r of results) assert.ok(r.status === 201 || (r.status === 409 && ['donation_in_run', 'payment_run_empty'].includes(r.body.code)), JSON.stringify(r.body));
      assert.equal(results.filter((r) => r.status === 201).length, 1, 'one run opens');
      const grants = await env.deps.db.selectFrom('payment_grants').select('donation_id').execute();
      assert.equal(new Set(grants.map((g) => g.donation_id)).size, grants.length, 'no donation in two payments');
      assert.deepEqual((await statuses('888888889')).sort(), Array(5).fill('approved'), 'the cleared organisation is in exactly one open run');
      assert.equal(grants.length, 15, "ten paid before, and the cleared organisation's five once");
      await checked('two runs at once');
    });

    test('the return (R03) said the account cannot take credits: the bank details are suspended, the next run pays by check', async () => {
      const details = await env.deps.db
        .selectFrom('payee_accounts as p')
        .innerJoin('non_profits as n', 'n.id', 'p.non_profit_id')
        .select(['p.status'])
        .where('n.ein', '=', '261544963')
        .execute();
      assert.deepEqual(
        details.map((d) => d.status),
        ['suspended'],
      );
      const audit = await env.deps.db.selectFrom('audit_log').select(['after']).where('action', '=', 'payee_account.suspended').execute();
      assert.equal(audit.length, 1);
      assert.match(String(audit[0]?.after), /"return_code":"R03"/);
      // Every code NACHA defines is one a return may carry, the unusual ones too; whether it stops the account is the table's.
      for (const code of ['R13', 'R18', 'R19', 'R21', 'R22', 'R25', 'R26', 'R27', 'R28', 'R61', 'R85']) assert.ok(ACH_RETURNS[code] !== undefined, code);
      assert.deepEqual(
        Object.entries(ACH_RETURNS)
          .filter(([, r]) => r.stops)
          .map(([c]) => c),
        ['R02', 'R03', 'R04', 'R12', 'R13', 'R14', 'R15', 'R16', 'R20', 'R23', 'R28', 'R34'],
      );
      // New donations to the organisation: the next run mails a check instead of paying the same account again.
      for (let i = 0; i < 2; i++) {
        const made = await call(env.app, 'POST', '/v1/donations', { key: (donors[i] as TestUser).key, body: { ein: '261544963', amount: 15 } });
        assert.equal(made.status, 201, JSON.stringify(made.body));
      }
      const approved = await admin('POST', '/donations/batch', { event: 'approve', status: 'scheduled' });
      assert.equal(approved.status, 200, JSON.stringify(approved.body));
      // After the two runs' dates (2027-06-01 and 06-02), whichever of them opened.
      const opened = await admin('POST', '/payment_runs', { pay_date: bankingDayFrom('2027-06-03') });
      assert.equal(opened.status, 201, JSON.stringify(opened.body));
      const foodbank = (opened.body.run.payments as Array<{ ein: string; method: string; account: string | null }>).filter((p) => p.ein === '261544963');
      assert.deepEqual(
        foodbank.map((p) => [p.method, p.account]),
        [['check', null]],
      );
      const submitted = await admin('POST', `/payment_runs/${opened.body.run.id}/submit`, {});
      assert.equal(submitted.status, 200, JSON.stringify(submitted.body));
      await checked('a suspended account');
      // Nothing approved is left once every open run is submitted: a run would hand the bank a batch with no entry, so none opens.
      const runs = (await admin('GET', '/payment_runs')).body.items as Array<{ id: number; status: string; pay_date: string }>;
      for (const run of runs) if (run.status === 'open') assert.equal((await admin('POST', `/payment_runs/${run.id}/submit`, {})).status, 200);
      const unused = bankingDayFrom(
        addDays(
          runs
            .map((r) => r.pay_date)
            .sort()
            .at(-1) as string,
          1,
        ),
      );
      const before = await fingerprint(env.deps);
      const empty = await admin('POST', '/payment_runs', { pay_date: unused });
      assert.deepEqual([empty.status, empty.body.code], [409, 'payment_run_empty']);
      assert.deepEqual(await fingerprint(env.deps), before, 'nothing changed');
    });
  });
}
