// Money out as a bank expects it (docs/rules.md §17), on both engines, with two people required
// (PAYMENTS_TWO_OPERATORS): bank details an operator types wait for a second one; a run is
// approved by someone other than who opened it before it is submitted; an open run can be
// withdrawn (its donations wait for another run, its checks refused by positive pay); at
// submission every organisation is screened again and its bank details looked at again, and a
// payment that no longer clears is left out of the files. `almoner check` after every step, and
// every refusal leaves the database as it was.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import {
  engines,
  openEnv,
  makeUser,
  fund,
  fundSandbox,
  makeNonProfit,
  call,
  fingerprint,
  TestClock,
  type TestEnv,
  type TestUser,
  TEST_ACH,
  assertLedgerBalanced,
} from './harness.ts';
import { createAdminToken } from '../src/modules/admin/index.ts';
import { readListFile, recordList, screenDirectory } from '../src/modules/diligence/index.ts';
import { runCheck } from '../src/modules/check/index.ts';
import { addDays, bankingDayFrom } from '../src/modules/payments/index.ts';
import { NO_IRS_DETAILS } from '../src/modules/nonprofits/nonprofits.store.ts';

const FIXTURES = new URL('./fixtures/diligence/', import.meta.url).pathname;
const PAYMENTS = {
  ach: TEST_ACH,
  checkAccount: '000987654321',
  checkFirstNumber: 7001,
  checkStaleDays: 180,
  payeeCoolingOffDays: 7,
  payeeKey: randomBytes(32),
  twoOperators: true,
};
const FOODBANK = '261544963';
const ARTS = '030219309';
// Listed in the revocations fixture: revoked only once that list is read, after the run opened.
const REVOKED = '111111111';

for (const { name: engine } of engines()) {
  describe(`money out with two operators on ${engine}`, () => {
    let env: TestEnv;
    let donors: TestUser[];
    const tokens: Record<'ana' | 'bob', string> = { ana: '', bob: '' };
    const clock = new TestClock('2026-11-20T15:00:00.000Z');
    const as = (who: 'ana' | 'bob', method: string, url: string, body?: unknown) =>
      call(env.app, method, `/admin/v1${url}`, { headers: { authorization: `Bearer ${tokens[who]}` }, ...(body === undefined ? {} : { body }) });
    const checked = (step: string) => assertLedgerBalanced(env.deps, step);
    const statuses = async (ein: string) =>
      (
        await env.deps.db
          .selectFrom('donations as d')
          .innerJoin('non_profits as n', 'n.id', 'd.non_profit_id')
          .leftJoin('payment_grants as g', 'g.donation_id', 'd.id')
          .select(['d.status', 'g.payment_id'])
          .where('n.ein', '=', ein)
          .orderBy('d.id')
          .execute()
      ).map((d) => `${d.status}${d.payment_id === null ? '' : ' in payment'}`);
    const refused = async (res: Promise<{ status: number; body: { code?: string } }>, status: number, code: string, before: unknown) => {
      const r = await res;
      assert.deepEqual([r.status, r.body.code], [status, code], JSON.stringify(r.body));
      assert.deepEqual(await fingerprint(env.deps), before, `${code} changed nothing`);
    };
    const give = async (ein: string) => {
      for (const d of donors) assert.equal((await call(env.app, 'POST', '/v1/donations', { key: d.key, body: { ein, amount: 25 } })).status, 201);
    };
    // Each run its own banking day, after the last one's (a withdrawn run keeps its date).
    let lastPayDate = '';
    let achPayment = 0;
    let artsCheck = 0;
    let firstRun = 0;
    let lastRunArtsCheck = 0;
    let lastRunPayDate = '';
    const nextPayDate = () => {
      const today = clock.now().toISOString().slice(0, 10);
      lastPayDate = bankingDayFrom(addDays(lastPayDate > today ? lastPayDate : today, 1));
      return lastPayDate;
    };

    before(async () => {
      env = await openEnv(engine, { payments: PAYMENTS, schedulerIntervalMs: 0, notifyIntervalMs: 0, sandboxTickMs: 0 }, { clock });
      tokens.ana = (await createAdminToken(env.deps, 'ana laptop', 'test', undefined, 'ana')).token;
      tokens.bob = (await createAdminToken(env.deps, 'bob laptop', 'test', undefined, 'bob')).token;
      donors = [await makeUser(env.deps), await makeUser(env.deps)];
      for (const d of donors) await fund(env.deps, d, 1_000_00);
      for (const [ein, name] of [
        [FOODBANK, 'Vermont Foodbank'],
        [ARTS, 'Green Mountain Arts'],
        [REVOKED, 'Old Town Relief Society'],
      ] as const) {
        await makeNonProfit(env.deps, { ein, name, ...NO_IRS_DETAILS, foundation: '15', street: '1 Main St', zip: '05401' });
      }
    });
    after(async () => env.close());

    test('bank details an operator types wait for a second operator, never the same person', async () => {
      const typed = await as('ana', 'POST', '/payee_accounts', { ein: FOODBANK, routing: '091000019', account: '12345678', account_type: 'checking', holder: 'Vermont Foodbank' });
      assert.equal(typed.status, 201, JSON.stringify(typed.body));
      assert.equal(typed.body.status, 'pending');
      const id = typed.body.id as number;
      const waiting = await fingerprint(env.deps);
      // The same person through another door (the CLI names them operator:ana) is still the same person.
      const { approvePayeeAccount } = await import('../src/modules/payments/index.ts');
      await assert.rejects(approvePayeeAccount(env.deps, id, 'operator:Ana'), (e: Error & { code?: string }) => e.code === 'same_operator');
      await refused(as('ana', 'POST', `/payee_accounts/${id}/approve`, {}), 403, 'same_operator', waiting);
      await refused(as('bob', 'POST', `/payee_accounts/${id + 1000}/approve`, {}), 409, 'payee_account_not_pending', waiting);
      const approved = await as('bob', 'POST', `/payee_accounts/${id}/approve`, {});
      assert.equal(approved.status, 200, JSON.stringify(approved.body));
      assert.deepEqual([approved.body.status, approved.body.account, approved.body.usable_from], ['active', '••••5678', '2026-11-27']);
      await refused(as('bob', 'POST', `/payee_accounts/${id}/approve`, {}), 409, 'payee_account_not_pending', await fingerprint(env.deps));
      const audit = await env.deps.db.selectFrom('audit_log').select(['actor', 'action']).where('object_type', '=', 'payee_account').orderBy('id').execute();
      assert.deepEqual(
        audit.map((a) => [a.actor, a.action]),
        [
          ['admin:ana', 'payee_account.set'],
          ['admin:bob', 'payee_account.approved'],
        ],
      );
      await checked('approving bank details');
    });

    test('a run is submitted only once a second operator approved it; the opener cannot', async () => {
      for (const ein of [FOODBANK, ARTS]) await give(ein);
      assert.equal((await as('ana', 'POST', '/donations/batch', { event: 'approve', status: 'scheduled' })).status, 200);
      clock.advance(7 * 86_400_000);
      const opened = await as('ana', 'POST', '/payment_runs', { pay_date: nextPayDate() });
      assert.equal(opened.status, 201, JSON.stringify(opened.body));
      const run = opened.body.run.id as number;
      assert.deepEqual(
        (opened.body.run.payments as Array<{ ein: string; method: string }>).map((p) => [p.ein, p.method]),
        [
          [FOODBANK, 'ach'],
          [ARTS, 'check'],
        ],
      );
      achPayment = opened.body.run.payments[0].id;
      artsCheck = opened.body.run.payments[1].id;
      firstRun = run;
      const open = await fingerprint(env.deps);
      await refused(as('ana', 'POST', `/payment_runs/${run}/submit`, {}), 409, 'payment_run_unapproved', open);
      await refused(as('bob', 'POST', `/payment_runs/${run}/submit`, {}), 409, 'payment_run_unapproved', open);
      await refused(as('ana', 'POST', `/payment_runs/${run}/approve`, {}), 403, 'same_operator', open);
      const approved = await as('bob', 'POST', `/payment_runs/${run}/approve`, {});
      assert.deepEqual([approved.status, approved.body.approved_by], [200, 'admin:bob']);
      await refused(as('bob', 'POST', `/payment_runs/${run}/approve`, {}), 409, 'payment_run_approved', await fingerprint(env.deps));
      const submitted = await as('ana', 'POST', `/payment_runs/${run}/submit`, {});
      assert.equal(submitted.status, 200, JSON.stringify(submitted.body));
      assert.deepEqual(submitted.body.left_out, []);
      assert.deepEqual(await statuses(FOODBANK), ['completed in payment', 'completed in payment']);
      assert.deepEqual(await statuses(ARTS), ['check_mailed in payment', 'check_mailed in payment']);
      await refused(as('bob', 'POST', `/payment_runs/${run}/withdraw`, { reason: 'too late' }), 409, 'payment_run_submitted', await fingerprint(env.deps));
      await checked('a run approved and submitted');
    });

    test('notifications of change (COR) correct the bank details as their code says, or are noted; bad corrected data refuses the file', async () => {
      // Written from the NACHA record layouts: an entry (6, zero amount, our reference) and its addenda of type 98.
      const entry = (reference: string) => `621091000010${'12345678'.padEnd(17)}${'0'.repeat(10)}${reference.padEnd(15)}${'VERMONT FOODBANK'.padEnd(22)}  1${'091000010000001'}`;
      const change = (code: string, corrected: string) => `798${code}${'011000010000001'}${' '.repeat(6)}09100001${corrected.padEnd(29)}${' '.repeat(15)}091000010000002`;
      const file = (...records: string[]) => {
        for (const r of records) assert.equal(r.length, 94, r);
        return `${records.join('\r\n')}\r\n`;
      };
      const ref = `PAYMENT ${achPayment}`;
      const before = await fingerprint(env.deps);
      // A C02 whose corrected routing number fails its check digit, and a code NACHA does not define: the whole file is refused.
      for (const [code, corrected] of [
        ['C02', '091000018'],
        ['C10', '1'],
      ] as const) {
        const bad = await as('ana', 'POST', '/payments/returns', { file: file(entry(ref), change('C01', '99887766'), entry(ref), change(code, corrected)) });
        assert.deepEqual([bad.status, bad.body.code], [422, 'ach_returns_malformed'], code);
      }
      assert.deepEqual(await fingerprint(env.deps), before, 'a refused file records nothing');
      const read = await as('ana', 'POST', '/payments/returns', { file: file(entry(ref), change('C09', ''), entry(ref), change('C06', `${'99887766'.padEnd(17)}   32`)) });
      assert.equal(read.status, 200, JSON.stringify(read.body));
      assert.deepEqual(
        read.body.items.map((i: { code: string; recorded: boolean }) => [i.code, i.recorded]),
        [
          ['C09', true],
          ['C06', true],
        ],
      );
      const details = await env.deps.db
        .selectFrom('payee_accounts as p')
        .innerJoin('non_profits as n', 'n.id', 'p.non_profit_id')
        .select(['p.status', 'p.account_last4', 'p.account_type', 'p.usable_from'])
        .where('n.ein', '=', FOODBANK)
        .orderBy('p.id')
        .execute();
      // The bank's correction is in force at once: it came from the account's own bank, not from a person.
      assert.deepEqual(
        details.map((d) => [d.status, d.account_last4, d.account_type, d.usable_from]),
        [
          ['replaced', '5678', 'checking', '2026-11-27'],
          ['active', '7766', 'savings', clock.now().toISOString().slice(0, 10)],
        ],
      );
      const audit = await env.deps.db
        .selectFrom('audit_log')
        .select(['action', 'after'])
        .where('action', 'in', ['payee_account.corrected', 'payee_account.change_noted'])
        .orderBy('id')
        .execute();
      assert.deepEqual(
        audit.map((a) => [a.action, /"change_code":"(C\d\d)"/.exec(String(a.after))?.[1]]),
        [
          ['payee_account.change_noted', 'C09'],
          ['payee_account.corrected', 'C06'],
        ],
      );
      // The same notification again: the details it corrected were replaced since, so nothing is done twice.
      const again = await as('ana', 'POST', '/payments/returns', { file: file(entry(ref), change('C06', `${'99887766'.padEnd(17)}   32`)) });
      assert.deepEqual(again.body.items, [{ payment_id: achPayment, code: 'C06', recorded: false }]);
      await checked('notifications of change');
    });

    test('an open run is withdrawn: its donations wait, approved, for another run, and the bank refuses its checks', async () => {
      await give(ARTS);
      assert.equal((await as('ana', 'POST', '/donations/batch', { event: 'approve', status: 'scheduled' })).status, 200);
      const payDate = nextPayDate();
      const opened = await as('ana', 'POST', '/payment_runs', { pay_date: payDate });
      assert.equal(opened.status, 201, JSON.stringify(opened.body));
      const run = opened.body.run.id as number;
      const before = await fingerprint(env.deps);
      await refused(as('ana', 'POST', '/payment_runs', { pay_date: payDate }), 409, 'payment_run_exists', before);
      for (const body of [{}, { reason: '' }, { reason: 'x'.repeat(501) }]) {
        const bad = await as('bob', 'POST', `/payment_runs/${run}/withdraw`, body);
        assert.deepEqual([bad.status, bad.body.code], [422, 'validation_failed'], JSON.stringify(body));
      }
      assert.deepEqual(await fingerprint(env.deps), before, 'a refused withdrawal changed nothing');
      const withdrawn = await as('bob', 'POST', `/payment_runs/${run}/withdraw`, { reason: 'the pay date was wrong' });
      assert.equal(withdrawn.status, 200, JSON.stringify(withdrawn.body));
      assert.deepEqual(
        [withdrawn.body.status, withdrawn.body.withdraw_reason, withdrawn.body.totals.payments, withdrawn.body.payments.map((p: { status: string }) => p.status)],
        ['withdrawn', 'the pay date was wrong', 0, ['withdrawn']],
      );
      assert.deepEqual(await statuses(ARTS), ['check_mailed in payment', 'check_mailed in payment', 'approved', 'approved']);
      // Its check number was handed out: the positive-pay file tells the bank to refuse it; the register does not print it.
      const positive = parse(String((await as('ana', 'GET', `/payment_runs/${run}/positive_pay`)).body), { columns: true }) as Array<Record<string, string>>;
      assert.deepEqual(
        positive.map((r) => [r.check_number, r.amount, r.issue_void]),
        [
          ['7002', '50.00', 'V'],
          ['TOTAL', '0.00', ''],
        ],
      );
      assert.deepEqual(parse(String((await as('ana', 'GET', `/payment_runs/${run}/checks`)).body), { columns: true }), []);
      const gone = await fingerprint(env.deps);
      await refused(as('ana', 'POST', `/payment_runs/${run}/submit`, {}), 409, 'payment_run_withdrawn', gone);
      await refused(as('ana', 'POST', `/payment_runs/${run}/approve`, {}), 409, 'payment_run_withdrawn', gone);
      await refused(as('ana', 'POST', `/payment_runs/${run}/withdraw`, { reason: 'again' }), 409, 'payment_run_withdrawn', gone);
      const audit = await env.deps.db.selectFrom('audit_log').select(['after']).where('action', '=', 'payment_run.withdrawn').executeTakeFirstOrThrow();
      assert.match(String(audit.after), /"reason":"the pay date was wrong","donations":\[\d+,\d+\]/);
      await checked('a withdrawn run');
      // A withdrawn run gives its date back: another run opens for the same day, with the same donations; then one only.
      const again = await as('ana', 'POST', '/payment_runs', { pay_date: payDate });
      assert.equal(again.status, 201, JSON.stringify(again.body));
      assert.deepEqual([again.body.run.pay_date, again.body.run.totals.grants], [payDate, 2]);
      await refused(as('ana', 'POST', '/payment_runs', { pay_date: payDate }), 409, 'payment_run_exists', await fingerprint(env.deps));
      assert.equal((await as('bob', 'POST', `/payment_runs/${again.body.run.id}/withdraw`, { reason: 'not this month' })).status, 200);
      await checked('a second run withdrawn');
    });

    test('at submission each organisation is screened again: a revoked one is withheld, one whose bank details changed waits', async () => {
      await give(REVOKED);
      await give(FOODBANK);
      assert.equal((await as('ana', 'POST', '/donations/batch', { event: 'approve', status: 'scheduled' })).status, 200);
      const opened = await as('ana', 'POST', '/payment_runs', { pay_date: nextPayDate() });
      assert.equal(opened.status, 201, JSON.stringify(opened.body));
      const run = opened.body.run.id as number;
      assert.deepEqual(
        (opened.body.run.payments as Array<{ ein: string; method: string }>).map((p) => [p.ein, p.method]),
        [
          [FOODBANK, 'ach'],
          [ARTS, 'check'],
          [REVOKED, 'check'],
        ],
      );
      // After the run opened: the IRS list revokes one organisation, and the foodbank's bank details change.
      await recordList(env.deps, readListFile('revocations', join(FIXTURES, 'revocations.txt')), clock.now().toISOString().slice(0, 10), 'test');
      await screenDirectory(env.deps);
      const typed = await as('bob', 'POST', '/payee_accounts', { ein: FOODBANK, routing: '091000019', account: '87654321', account_type: 'checking', holder: 'Vermont Foodbank' });
      assert.equal((await as('ana', 'POST', `/payee_accounts/${typed.body.id}/approve`, {})).status, 200);
      assert.equal((await as('bob', 'POST', `/payment_runs/${run}/approve`, {})).status, 200);
      const available = async () =>
        Number(
          (
            await env.deps.db
              .selectFrom('ledger_accounts')
              .select((eb) => eb.fn.sum<number>('balance_cents').as('cents'))
              .where('kind', '=', 'available')
              .where(
                'fund_id',
                'in',
                donors.map((d) => d.fund_id),
              )
              .executeTakeFirstOrThrow()
          ).cents,
        );
      const availableBefore = await available();
      const submitted = await as('ana', 'POST', `/payment_runs/${run}/submit`, {});
      assert.equal(submitted.status, 200, JSON.stringify(submitted.body));
      assert.deepEqual(
        (submitted.body.left_out as Array<{ ein: string; outcome: string; why: string }>).map((l) => [l.ein, l.outcome, l.why.split(':')[0]]),
        [
          [FOODBANK, 'released', 'its bank details changed or were suspended after the run was opened'],
          [REVOKED, 'rejected', 'non_profit_revoked'],
        ],
      );
      assert.deepEqual(
        (submitted.body.payments as Array<{ ein: string; status: string }>).map((p) => [p.ein, p.status]),
        [
          [FOODBANK, 'withdrawn'],
          [ARTS, 'sent'],
          [REVOKED, 'withheld'],
        ],
      );
      assert.deepEqual([submitted.body.totals.payments, submitted.body.totals.amount], [1, '50.00'], 'the totals are what is paid');
      lastRunArtsCheck = (submitted.body.payments as Array<{ id: number; ein: string }>).find((p) => p.ein === ARTS)?.id as number;
      lastRunPayDate = submitted.body.pay_date;
      assert.deepEqual(await statuses(REVOKED), ['rejected in payment', 'rejected in payment']);
      assert.equal((await available()) - availableBefore, 50_00, "the revoked organisation's donations gave their money back");
      assert.deepEqual((await statuses(FOODBANK)).slice(2), ['approved', 'approved'], 'they wait for the next run');
      // Nothing is left to pay by ACH: no NACHA file with an empty batch.
      const ach = await as('ana', 'GET', `/payment_runs/${run}/ach`);
      assert.deepEqual([ach.status, ach.body.code], [409, 'ach_file_empty']);
      await checked('a submission that left two payments out');
      // The next run pays the foodbank by check: its new details are cooling off.
      const next = await as('ana', 'POST', '/payment_runs', { pay_date: nextPayDate() });
      assert.deepEqual(
        (next.body.run.payments as Array<{ ein: string; method: string; grants: number }>).map((p) => [p.ein, p.method, p.grants]),
        [[FOODBANK, 'check', 2]],
      );
      await checked('the next run');
    });
    test('month-end outcomes: the NACHA file read back, a return file with an unusual code and a notice, a voided check the bank paid, stale checks as of a day', async () => {
      // The first run's NACHA file, read from the record layouts: one CCD entry for the foodbank, with its addenda.
      const ach = String((await as('ana', 'GET', `/payment_runs/${firstRun}/ach`)).body);
      const records = ach.split('\r\n').filter((r) => r !== '');
      assert.ok(records.every((r) => r.length === 94) && records.length % 10 === 0, 'records of 94, blocked by 10');
      const entries = records.filter((r) => r[0] === '6');
      assert.deepEqual(
        entries.map((e) => [e.slice(1, 3), Number(e.slice(29, 39)), e.slice(39, 54).trim()]),
        [['22', 50_00, `PAYMENT ${achPayment}`]],
      );
      const batchControl = records.find((r) => r[0] === '8') as string;
      assert.equal(Number(batchControl.slice(32, 44)), 50_00, 'the batch credits what its entries do');
      // A return file with an unusual code (R85, which NACHA defines for international entries) and a notification of change.
      const entry = entries[0] as string;
      const returned = `${entry.slice(0, 79)}${entry.slice(79)}`;
      const addenda99 = `799R85${entry.slice(79, 94)}${' '.repeat(6)}09100001${' '.repeat(44)}${entry.slice(79, 94)}`;
      const addenda98 = `798C09${entry.slice(79, 94)}${' '.repeat(6)}09100001${' '.repeat(29)}${' '.repeat(15)}${entry.slice(79, 94)}`;
      const noc = `621091000010${'12345678'.padEnd(17)}${'0'.repeat(10)}${entry.slice(39, 54)}${entry.slice(54, 79)}${entry.slice(79, 94)}`;
      const file = [returned, addenda99, noc, addenda98].join('\r\n');
      const read = await as('ana', 'POST', '/payments/returns', { file });
      assert.equal(read.status, 200, JSON.stringify(read.body));
      assert.deepEqual(
        read.body.items.map((i: { code: string; recorded: boolean }) => [i.code, i.recorded]),
        [
          ['R85', true],
          ['C09', true],
        ],
      );
      assert.deepEqual((await statuses(FOODBANK)).slice(0, 2), ['not_completed in payment', 'not_completed in payment'], 'the returned grants are back with their donors');
      await checked('a return file with an unusual code and a notice');
      // The first run's check is voided, then the bank pays it anyway: an exception until resolved.
      assert.equal((await as('bob', 'POST', `/payments/${artsCheck}/void`, { reason: 'lost in the mail' })).status, 200);
      const today = clock.now().toISOString().slice(0, 10);
      const paid = await as('ana', 'POST', '/payments/checks_paid', { file: `check_number,amount,paid_date\n7001,50.00,${today}\n` });
      assert.deepEqual(paid.body.items, [{ payment_id: artsCheck, check_number: 7001, recorded: true, status: 'voided', exception: true }]);
      assert.match((await runCheck(env.deps)).flatMap((c) => c.failures).join('\n'), new RegExp(`payment ${artsCheck} \\(live\\): the bank paid its voided check`));
      const exception = (await as('ana', 'GET', '/payment_exceptions')).body.items[0].id;
      assert.equal((await as('bob', 'POST', `/payment_exceptions/${exception}/resolve`, { resolution: 'recovered', note: 'the bank reversed it' })).status, 200);
      await checked('an exception resolved');
      // The last run's check, stale only 180 days after its date: as of the day before, nothing; as of that day, voided.
      const { voidStaleChecks } = await import('../src/modules/payments/index.ts');
      clock.set(`${addDays(lastRunPayDate, 200)}T12:00:00.000Z`);
      assert.deepEqual(await voidStaleChecks(env.deps, 'live', 'operator:ana', addDays(lastRunPayDate, 180)), [], 'not yet stale as of its 180th day');
      assert.deepEqual(await voidStaleChecks(env.deps, 'live', 'operator:ana', addDays(lastRunPayDate, 181)), [lastRunArtsCheck]);
      await checked('stale checks voided as of a day');
    });

    test("a sandbox return leaves the organisation's bank details alone: they are the live book's too", async () => {
      const typed = await as('ana', 'POST', '/payee_accounts', { ein: FOODBANK, routing: '091000019', account: '55554444', account_type: 'checking', holder: 'Vermont Foodbank' });
      assert.equal((await as('bob', 'POST', `/payee_accounts/${typed.body.id}/approve`, {})).status, 200);
      clock.advance(8 * 86_400_000);
      const sandbox = (await call(env.app, 'POST', '/v1/api_keys', { key: (donors[0] as TestUser).key, body: { name: 'sandbox', mode: 'test' } })).body.key as string;
      await fundSandbox(env.app, sandbox, 100);
      assert.equal((await call(env.app, 'POST', '/v1/donations', { key: sandbox, body: { ein: FOODBANK, amount: 25 } })).status, 201);
      assert.equal((await as('ana', 'POST', '/donations/batch?book=test', { event: 'approve', status: 'scheduled' })).status, 200);
      const opened = await as('ana', 'POST', '/payment_runs?book=test', { pay_date: nextPayDate() });
      assert.equal(opened.status, 201, JSON.stringify(opened.body));
      const payment = opened.body.run.payments[0] as { id: number; method: string; account: string };
      assert.deepEqual([payment.method, payment.account], ['ach', '••••4444']);
      assert.equal((await as('bob', 'POST', `/payment_runs/${opened.body.run.id}/approve?book=test`, {})).status, 200);
      assert.equal((await as('ana', 'POST', `/payment_runs/${opened.body.run.id}/submit?book=test`, {})).status, 200);
      const returned = await as('ana', 'POST', `/payments/${payment.id}/return?book=test`, { return_code: 'R03' });
      assert.equal(returned.status, 200, JSON.stringify(returned.body));
      const details = await env.deps.db.selectFrom('payee_accounts').select(['status']).where('id', '=', typed.body.id).executeTakeFirstOrThrow();
      assert.equal(details.status, 'active', "a developer's sandbox return does not stop the live payments");
      const suspended = await env.deps.db.selectFrom('audit_log').select('id').where('action', '=', 'payee_account.suspended').where('object_id', '=', typed.body.id).execute();
      assert.deepEqual(suspended, []);
      await checked('a sandbox return');
    });
  });
}
