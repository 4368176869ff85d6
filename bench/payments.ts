// A payment run at size: `npm run bench -- --only payments`. On each engine,
// 100,000 approved donations to 20,000 organisations (half with bank details,
// sealed), written straight into the tables; then the run opened (one payment
// per organisation), its NACHA file, its check register and its remittance advice built. Reports
// each step's time and the process's resident memory before and at its
// highest (sampled every 50 ms), which is what "bounded" means here: it grows
// with the number of payments, not of anything else. Donations are inserted
// approved without their hold's journal (the run moves no money when opened;
// submitting is not measured), so this database is not one `almoner check`
// passes.
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { loadConfig } from '../src/config.ts';
import { openPlatform } from '../src/platform.ts';
import { bulkInsert } from '../src/db/bulk.ts';
import { seal } from '../src/shared/sealed.ts';
import { createUser } from '../src/modules/users/index.ts';
import { achFileOf, addDays, bankingDayFrom, checkRows, openRun, runRemittances, submitRun } from '../src/modules/payments/index.ts';
import { freshDatabase } from './processes.ts';
import { FILE_COLUMNS } from '../src/modules/nonprofits/directory.store.ts';

const ORGS = Number(process.env.BENCH_PAYMENT_ORGS ?? 20_000);
const DONATIONS = Number(process.env.BENCH_PAYMENT_DONATIONS ?? 100_000);
const DONORS = 100;
const ACH = {
  destinationRouting: '091000019',
  destinationName: 'Bench Bank',
  originId: '1234567890',
  originName: 'Almoner Bench',
  companyId: '1234567890',
  companyName: 'Almoner Bench',
  odfiRouting: '011000015',
};

/** What `work` took: its time, this process's CPU meanwhile (whatever else it ran), its resident memory before and at its highest. */
export function peakDuring<T>(work: () => Promise<T>): Promise<{ value: T; seconds: number; cpuSeconds: number; rssMb: number; peakMb: number }> {
  const rss = () => process.memoryUsage().rss / 1_048_576;
  const before = rss();
  let peak = before;
  const timer = setInterval(() => {
    peak = Math.max(peak, rss());
  }, 50);
  const started = performance.now();
  const cpu = process.cpuUsage();
  return work().then((value) => {
    clearInterval(timer);
    peak = Math.max(peak, rss());
    const used = process.cpuUsage(cpu);
    return { value, seconds: (performance.now() - started) / 1000, cpuSeconds: (used.user + used.system) / 1e6, rssMb: before, peakMb: peak };
  });
}

export async function benchPayments(engines: readonly string[], log: (line: string) => void): Promise<string[]> {
  const rows = [
    `Payment runs (ADR 20): ${DONATIONS.toLocaleString('en-US')} approved donations to ${ORGS.toLocaleString('en-US')} organisations, half paid by ACH.`,
    '',
    '| engine | step | time | resident memory before -> highest |',
    '|---|---|---|---|',
  ];
  for (const engine of engines) {
    const { databaseUrl, cleanup } = await freshDatabase(engine, 'payments');
    const key = randomBytes(32);
    const config = loadConfig(
      {},
      { databaseUrl, dbStatementTimeoutMs: 0, payments: { ach: ACH, checkAccount: '000111', checkFirstNumber: 1001, checkStaleDays: 180, payeeCoolingOffDays: 0, payeeKey: key } },
    );
    const platform = await openPlatform(config, { log: pino({ level: 'warn' }) });
    const { deps } = platform;
    try {
      log(`  ${engine}: seeding ${ORGS} organisations and ${DONATIONS} donations`);
      const at = new Date().toISOString();
      // Each organisation as an import writes it (FILE_COLUMNS), with the import's own bookkeeping.
      const columns = ['ein', ...FILE_COLUMNS, 'source', 'last_seen_run', 'removed_at', 'created_at', 'updated_at'] as const;
      const orgRows = Array.from({ length: ORGS }, (_, i) => {
        const ein = String(900_000_000 + i);
        const row: Record<(typeof columns)[number], unknown> = {
          ein,
          name: `Bench Charity ${i}`,
          name_lower: `bench charity ${i}`,
          website: null,
          city: 'Burlington',
          state: 'VT',
          zip: '05401',
          latitude: 44.47,
          longitude: -73.21,
          ntee_code: 'B20',
          cause_id: 2,
          eligible: 1,
          slug: `/charities/${ein}-bench-charity-${i}`,
          income_amt: 0,
          asset_amt: 0,
          tax_period: '202401',
          street: '1 Main St',
          ruling: '',
          subsection: '03',
          foundation: '15',
          affiliation: '',
          organization: '',
          filing_req: '',
          deductibility: '1',
          status: '01',
          revenue_amt: 0,
          source: 'bench',
          last_seen_run: null,
          removed_at: null,
          created_at: at,
          updated_at: at,
        };
        return columns.map((c) => row[c]);
      });
      for (let i = 0; i < orgRows.length; i += 1000) await bulkInsert(deps.db, 'non_profits', columns, orgRows.slice(i, i + 1000));
      const ids = (await deps.db.selectFrom('non_profits').select('id').where('source', '=', 'bench').orderBy('id').execute()).map((r) => Number(r.id));
      const payees: unknown[][] = ids
        .filter((_, i) => i % 2 === 0)
        .map((id) => [id, '091000019', seal(key, '000123456789'), '6789', 'checking', 'Bench', 'active', at, 'bench', '2000-01-01']);
      for (let i = 0; i < payees.length; i += 1000) {
        await bulkInsert(
          deps.db,
          'payee_accounts',
          ['non_profit_id', 'routing', 'account_sealed', 'account_last4', 'account_type', 'holder', 'status', 'created_at', 'created_by', 'usable_from'],
          payees.slice(i, i + 1000),
        );
      }
      const donors: Array<{ user_id: number; fund_id: number }> = [];
      for (let i = 0; i < DONORS; i++) donors.push(await deps.db.transaction().execute((trx) => createUser(deps, { name: `Bench donor ${i}` }, trx)));
      for (let i = 0; i < DONATIONS; i += 1000) {
        const batch: unknown[][] = [];
        for (let j = i; j < Math.min(DONATIONS, i + 1000); j++) {
          const donor = donors[j % DONORS] as { user_id: number; fund_id: number };
          batch.push(['live', donor.user_id, donor.user_id, donor.fund_id, ids[j % ids.length], 1000 + (j % 50) * 100, 'approved', 'public', at, at, 'name']);
        }
        await bulkInsert(
          deps.db,
          'donations',
          ['book', 'user_id', 'actor_id', 'fund_id', 'non_profit_id', 'amount_cents', 'status', 'visibility', 'created_at', 'updated_at', 'share'],
          batch,
        );
      }
      // What the donations hold: each donor's reserved money, as approving them would have left it (submitting pays it out).
      for (const [i, donor] of donors.entries()) {
        let held = 0;
        for (let j = i; j < DONATIONS; j += DONORS) held += 1000 + (j % 50) * 100;
        await deps.db.updateTable('ledger_accounts').set({ balance_cents: held }).where('fund_id', '=', donor.fund_id).where('kind', '=', 'reserved').execute();
      }
      // The next banking day (a run's pay date must be one, not past, within PAY_DATE_MAX_DAYS).
      const payDate = bankingDayFrom(addDays(new Date().toISOString().slice(0, 10), 1));
      const opened = await peakDuring(() => openRun(deps, 'live', payDate, 'bench'));
      rows.push(
        `| ${engine} | open the run: ${opened.value.run.totals.payments.toLocaleString('en-US')} payments, ${opened.value.run.totals.grants.toLocaleString('en-US')} grants | ${opened.seconds.toFixed(1)} s | ${opened.rssMb.toFixed(0)} -> ${opened.peakMb.toFixed(0)} MiB |`,
      );
      const ach = await peakDuring(() => achFileOf(deps, 'live', opened.value.run.id));
      rows.push(
        `| ${engine} | the NACHA file (${(ach.value.length / 1_048_576).toFixed(1)} MiB) | ${ach.seconds.toFixed(1)} s | ${ach.rssMb.toFixed(0)} -> ${ach.peakMb.toFixed(0)} MiB |`,
      );
      const register = await peakDuring(async () => {
        let n = 0;
        for await (const _ of checkRows(deps, 'live', opened.value.run.id, 'register')) n += 1;
        return n;
      });
      rows.push(
        `| ${engine} | the check register (${register.value.toLocaleString('en-US')} checks) | ${register.seconds.toFixed(1)} s | ${register.rssMb.toFixed(0)} -> ${register.peakMb.toFixed(0)} MiB |`,
      );
      // Every file of the run's remittance advice, one after another, as the CLI writes them.
      const letters = await peakDuring(async () => {
        let bytes = 0;
        let parts = 1;
        for (let part = 1; part <= parts; part++) {
          const file = await runRemittances(deps, 'live', opened.value.run.id, { part });
          parts = file.parts;
          bytes += file.pdf.length;
          if (part % 10 === 0) log(`    ${part} of ${parts} files of letters`);
        }
        return { bytes, parts };
      });
      rows.push(
        `| ${engine} | the remittance advice (${opened.value.run.totals.payments.toLocaleString('en-US')} letters in ${letters.value.parts} files, ${(letters.value.bytes / 1_048_576).toFixed(1)} MiB) | ${letters.seconds.toFixed(1)} s | ${letters.rssMb.toFixed(0)} -> ${letters.peakMb.toFixed(0)} MiB |`,
      );
      // Submitting sends every payment: each grant completed or mailed with its hold paid out (a journal posting each).
      const submitted = await peakDuring(() => submitRun(deps, 'live', opened.value.run.id, 'bench'));
      rows.push(
        `| ${engine} | submit the run (${submitted.value.totals.grants.toLocaleString('en-US')} grants) | ${submitted.seconds.toFixed(1)} s | ${submitted.rssMb.toFixed(0)} -> ${submitted.peakMb.toFixed(0)} MiB |`,
      );
    } finally {
      await platform.close();
      await cleanup();
    }
  }
  rows.push('');
  return rows;
}
