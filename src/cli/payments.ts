// `almoner payments`: paying charities from the command line (docs/rules.md
// §17), the same services as /admin/v1/payment_runs: open a run, review it,
// write its files, submit it, record each payment's outcome; and
// `almoner nonprofits bank-details`, an organisation's details for ACH.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { stringify } from 'csv-stringify/sync';
import type { Book } from '../shared/book.ts';
import {
  achFileOf,
  checkRows,
  CHECK_REGISTER_HEADER,
  getRun,
  listRuns,
  openRun,
  POSITIVE_PAY_HEADER,
  listExceptions,
  recordAchReturns,
  recordPaidChecks,
  resolveException,
  runRemittances,
  setPayeeAccount,
  approvePayeeAccount,
  settle,
  submitRun,
  approveRun,
  withdrawRun,
  voidStaleChecks,
  type RunView,
} from '../modules/payments/index.ts';
import { UsageError, actor, id, withPlatform } from './common.ts';
import { writeWhole } from '../shared/files.ts';

function show(run: RunView): string {
  const lines = [
    `Payment run ${run.id} for ${run.pay_date} (${run.book}): ${run.status}; ${run.totals.payments} payments, ${run.totals.grants} grants, $${run.totals.amount} (ACH $${run.totals.ach}, checks $${run.totals.checks})`,
  ];
  for (const p of run.payments) {
    const how = p.method === 'ach' ? `ACH to ${p.account ?? '?'}` : `check ${p.check_number ?? '?'}`;
    lines.push(
      `  ${String(p.id).padStart(6)}  ${p.status.padEnd(8)} $${p.amount.padStart(12)}  ${how.padEnd(18)} ${p.grants} grant${p.grants === 1 ? '' : 's'}  EIN ${p.ein}  ${p.payee}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

async function collect(rows: AsyncIterable<unknown[]>): Promise<unknown[][]> {
  const out: unknown[][] = [];
  for await (const r of rows) out.push(r);
  return out;
}

const RUN_ACTIONS = ['list', 'open', 'show', 'ach', 'checks', 'positive-pay', 'remittances', 'approve', 'withdraw', 'submit'];

/** The run an action names, once the action is one (a wrong one is refused before its id is read). */
function runIdOf(action: string | undefined, runText: string | undefined): number {
  if (!RUN_ACTIONS.includes(action ?? '')) throw new UsageError(`unknown payments run command: ${action ?? '(none)'} (${RUN_ACTIONS.join(', ')})`);
  return id(runText, 'the run ID');
}

type Options = { date?: string; out?: string; reason?: string; file?: string; code?: string; as?: string; note?: string; 'as-of'?: string; sandbox?: boolean };

/**
 * Runs one long transaction (opening or submitting a run of thousands of payments) saying on
 * stderr what it is doing and, once done, how long it took: an operator watching a quiet terminal
 * knows it is working, and stdout stays the run's text for a script.
 */
async function saying<T>(what: string, work: () => Promise<T>): Promise<T> {
  const started = performance.now();
  process.stderr.write(`${what}...\n`);
  const done = await work();
  process.stderr.write(`  done in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
  return done;
}

/** `payments run open --date D`: the run, and the organisations it rejected or held and why. */
function openCommand(day: string, book: Book, who: string): Promise<number> {
  return withPlatform(async ({ deps }) => {
    const opened = await saying(`Opening a run for ${day}: every approved donation in no payment, organisation by organisation, in one transaction`, () =>
      openRun(deps, book, day, who),
    );
    process.stdout.write(show(opened.run));
    for (const r of opened.rejected)
      process.stdout.write(`  rejected ${r.donations} donation(s), $${r.amount}, to EIN ${r.ein} ${r.name}: ${r.code} (their money is back in the donors' funds)\n`);
    for (const h of opened.held)
      process.stdout.write(`  held ${h.donations} donation(s), $${h.amount}, to EIN ${h.ein} ${h.name}: a close match on the sanctions list awaits review\n`);
    return 0;
  });
}

/** `payments run submit ID`: the run as sent, and each payment left out and why. */
function submitCommand(runId: number, book: Book, who: string): Promise<number> {
  return withPlatform(async ({ deps }) => {
    const submitted = await saying(`Submitting run ${runId}: each organisation screened again, then every payment sent, in one transaction`, () =>
      submitRun(deps, book, runId, who),
    );
    process.stdout.write(show(submitted));
    for (const l of submitted.left_out)
      process.stdout.write(
        `  left out payment ${l.payment_id} to EIN ${l.ein}: ${l.why} (${l.outcome === 'rejected' ? "its donations rejected, their money back in the donors' funds" : 'its donations wait for the next run'})\n`,
      );
    return 0;
  });
}

/** `almoner payments run remittances ID --out FILE.pdf`: the letters, 500 to a file. */
function remittancesCommand(runId: number, values: Options, book: Book, refuse: (allowed: readonly string[]) => void): Promise<number> {
  refuse(['out']);
  const out = values.out;
  if (out === undefined) throw new UsageError('payments run remittances ID --out FILE.pdf (a run of more than 500 letters: FILE-1.pdf, FILE-2.pdf...)');
  return withPlatform(async ({ deps }) => {
    // A run of thousands of letters is several files (each one's memory bounded): FILE-1.pdf, FILE-2.pdf...
    let parts = 1;
    for (let part = 1; part <= parts; part++) {
      const file = await runRemittances(deps, book, runId, { part, progress: (done, total) => process.stderr.write(`  part ${part}: ${done} of ${total} letters\r`) });
      parts = file.parts;
      const name = parts === 1 ? out : out.replace(/(\.pdf)?$/i, `-${part}.pdf`);
      await writeWhole(name, file.pdf);
      process.stderr.write(`\n`);
      if (parts > 1) process.stdout.write(`Wrote ${name} (part ${part} of ${parts}, ${file.letters} letters).\n`);
    }
    if (parts === 1) process.stdout.write(`Wrote ${out}.\n`);
    return 0;
  });
}

/** `almoner payments run ach|checks|positive-pay ID --out FILE`: what goes to the bank. */
function bankFileCommand(action: 'ach' | 'checks' | 'positive-pay', runId: number, values: Options, book: Book, refuse: (allowed: readonly string[]) => void): Promise<number> {
  refuse(['out']);
  const out = values.out;
  if (out === undefined) throw new UsageError(`payments run ${action} ID --out FILE`);
  return withPlatform(async ({ deps }) => {
    const text =
      action === 'ach'
        ? await achFileOf(deps, book, runId)
        : stringify(await collect(checkRows(deps, book, runId, action === 'checks' ? 'register' : 'positive_pay')), {
            header: true,
            columns: [...(action === 'checks' ? CHECK_REGISTER_HEADER : POSITIVE_PAY_HEADER)],
          });
    await writeWhole(out, text, 0o600);
    process.stdout.write(`Wrote ${out}.\n`);
    return 0;
  });
}

/** `almoner payments run ACTION [ID]`: a run's life from opening to submission. */
async function runCommand(positionals: string[], values: Options, book: Book, who: string, refuse: (allowed: readonly string[]) => void): Promise<number> {
  const [action, runText] = positionals;
  if (action === 'list') {
    refuse([]);
    return withPlatform(async ({ deps }) => {
      for (const r of await listRuns(deps, book)) process.stdout.write(`${r.id}  ${r.pay_date}  ${r.status}\n`);
      return 0;
    });
  }
  if (action === 'open') {
    refuse(['date']);
    if (values.date === undefined) throw new UsageError('payments run open --date YYYY-MM-DD: the day the payments are made');
    return openCommand(values.date, book, who);
  }
  const runId = runIdOf(action, runText);
  if (action === 'show') {
    refuse([]);
    return withPlatform(async ({ deps }) => {
      process.stdout.write(show(await getRun(deps, book, runId)));
      return 0;
    });
  }
  if (action === 'remittances') return remittancesCommand(runId, values, book, refuse);
  if (action === 'ach' || action === 'checks' || action === 'positive-pay') return bankFileCommand(action, runId, values, book, refuse);
  if (action === 'approve') {
    refuse([]);
    return withPlatform(async ({ deps }) => {
      process.stdout.write(show(await approveRun(deps, book, runId, who)));
      return 0;
    });
  }
  if (action === 'withdraw') {
    refuse(['reason']);
    const reason = values.reason;
    if (reason === undefined) throw new UsageError('payments run withdraw ID --reason TEXT: why (audited)');
    return withPlatform(async ({ deps }) => {
      process.stdout.write(show(await withdrawRun(deps, book, runId, who, reason)));
      process.stdout.write('Its donations stay approved and wait for the next run.\n');
      return 0;
    });
  }
  if (action === 'submit') {
    refuse([]);
    return submitCommand(runId, book, who);
  }
  throw new UsageError(`unknown payments run command: ${action ?? '(none)'} (${RUN_ACTIONS.join(', ')})`);
}

type Ctx = { values: Options; positionals: string[]; book: Book; who: string; sub: string | undefined; refuse: (allowed: readonly string[]) => void };

/** `almoner payments returns --file FILE`: the bank's NACHA returns and notices of change. */
function returnsCommand({ values, book, who, refuse }: Ctx): Promise<number> {
  refuse(['file']);
  const file = values.file;
  if (file === undefined) throw new UsageError("payments returns --file FILE: the bank's NACHA return file (returns and notifications of change)");
  return withPlatform(async ({ deps }) => {
    for (const r of await recordAchReturns(deps, book, readFileSync(file, 'utf8'), who)) {
      const what = r.code.startsWith('C')
        ? r.recorded
          ? ': a notification of change, its bank details corrected or the change noted (claimants and OPERATOR_EMAIL told)'
          : ': a notification of change with nothing to do (corrected before, details replaced since, or the sandbox)'
        : r.recorded
          ? ", returned: its grants are back in the donors' funds"
          : ', recorded before';
      process.stdout.write(`payment ${r.payment_id}: ${r.code}${what}\n`);
    }
    return 0;
  });
}

/** `almoner payments checks-paid --file FILE`: the bank's paid checks; a voided one paid is an exception (exit 1). */
function checksPaidCommand({ values, book, who, refuse }: Ctx): Promise<number> {
  refuse(['file']);
  const file = values.file;
  if (file === undefined) throw new UsageError("payments checks-paid --file FILE: the bank's paid-checks file (CSV: check_number, amount, paid_date)");
  return withPlatform(async ({ deps }) => {
    let exceptions = 0;
    for (const r of await recordPaidChecks(deps, book, readFileSync(file, 'utf8'), who)) {
      if (r.exception === true) {
        exceptions += 1;
        process.stdout.write(
          `EXCEPTION: check ${r.check_number} (payment ${r.payment_id}) was voided, and the bank paid it${r.recorded ? '' : ' (recorded before)'}: recover it from the bank, then \`almoner payments exceptions resolve ID --as recovered|charged --note TEXT\`\n`,
        );
        continue;
      }
      process.stdout.write(`check ${r.check_number} (payment ${r.payment_id}): ${r.recorded ? 'cashed: its grants are completed' : 'recorded before'}\n`);
    }
    // A paid voided check is money out the books did not expect: the command fails so a job notices.
    return exceptions > 0 ? 1 : 0;
  });
}

/** `almoner payments exceptions [list] | resolve ID`: voided checks the bank paid. */
function exceptionsCommand({ values, positionals, book, who, refuse }: Ctx): Promise<number> {
  const [action, idText] = positionals;
  if (action === undefined || action === 'list') {
    refuse([]);
    return withPlatform(async ({ deps }) => {
      const found = await listExceptions(deps, book);
      if (found.length === 0) process.stdout.write('No exception.\n');
      for (const x of found) {
        process.stdout.write(
          `  ${String(x.id).padStart(6)}  payment ${x.payment_id}  $${x.amount}  paid ${x.paid_date}  ${x.resolution === null ? 'OPEN' : `${x.resolution} by ${x.resolved_by}: ${x.note}`}\n`,
        );
      }
      return 0;
    });
  }
  if (action !== 'resolve') throw new UsageError('payments exceptions [list] | resolve ID --as recovered|charged --note TEXT');
  refuse(['as', 'note']);
  const exceptionId = id(idText, 'the exception ID');
  if (values.as === undefined || values.note === undefined) throw new UsageError('payments exceptions resolve ID --as recovered|charged --note TEXT');
  const input = { resolution: values.as, note: values.note };
  return withPlatform(async ({ deps }) => {
    await resolveException(deps, book, exceptionId, input, who);
    process.stdout.write(`Exception ${exceptionId} is resolved: ${values.as}.\n`);
    return 0;
  });
}

/** `almoner payments void-stale [--as-of DAY]`: checks not cashed in time are voided. */
function voidStaleCommand({ values, book, who, refuse }: Ctx): Promise<number> {
  refuse(['as-of']);
  const asOf = values['as-of'];
  return withPlatform(async ({ deps }) => {
    const voided = await voidStaleChecks(deps, book, who, asOf);
    process.stdout.write(voided.length === 0 ? 'No stale check.\n' : `Voided stale checks: payments ${voided.join(', ')}; their grants are back in the donors' funds.\n`);
    return 0;
  });
}

/** `almoner payments return|cash|void ID`: one payment's outcome, by hand. */
function settleCommand({ values, positionals, book, who, refuse }: Ctx, sub: 'return' | 'cash' | 'void'): Promise<number> {
  refuse(sub === 'return' ? ['code'] : sub === 'void' ? ['reason'] : []);
  const paymentId = id(positionals[0], 'the payment ID');
  if (sub === 'return' && values.code === undefined) throw new UsageError('payments return ID --code R03: the ACH return code');
  if (sub === 'void' && (values.reason ?? '').trim() === '') throw new UsageError('payments void ID --reason TEXT: why (the donors are told)');
  return withPlatform(async ({ deps }) => {
    const p = await settle(deps, book, paymentId, sub, {
      actor: who,
      ...(values.code === undefined ? {} : { returnCode: values.code }),
      ...(values.reason === undefined ? {} : { reason: values.reason }),
    });
    process.stdout.write(`Payment ${p.id} is ${p.status}${p.return_code === null ? '' : ` (${p.return_code})`}.\n`);
    return 0;
  });
}

export async function paymentsCommand(sub: string | undefined, rest: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    strict: true,
    options: {
      date: { type: 'string' },
      out: { type: 'string' },
      file: { type: 'string' },
      code: { type: 'string' },
      reason: { type: 'string' },
      as: { type: 'string' },
      note: { type: 'string' },
      'as-of': { type: 'string' },
      sandbox: { type: 'boolean', default: false },
    },
  });
  const book: Book = values.sandbox === true ? 'test' : 'live';
  const who = actor();
  const refuse = (allowed: readonly string[]) => {
    const given = Object.keys(values).filter((k) => k !== 'sandbox' && values[k as keyof typeof values] !== undefined);
    const extra = given.filter((k) => !allowed.includes(k));
    if (extra.length > 0) throw new UsageError(`payments ${[sub, positionals[0]].filter(Boolean).join(' ')} takes no --${extra.join(', --')}`);
  };
  const ctx: Ctx = { values, positionals, book, who, sub, refuse };
  if (sub === 'run') return runCommand(positionals, values, book, who, refuse);
  if (sub === 'returns') return returnsCommand(ctx);
  if (sub === 'checks-paid') return checksPaidCommand(ctx);
  if (sub === 'exceptions') return exceptionsCommand(ctx);
  if (sub === 'void-stale') return voidStaleCommand(ctx);
  if (sub === 'return' || sub === 'cash' || sub === 'void') return settleCommand(ctx, sub);
  throw new UsageError(`unknown payments command: ${sub ?? '(none)'}`);
}

/**
 * `almoner nonprofits bank-details EIN --routing R --account A --type checking|savings --holder NAME`,
 * and `almoner nonprofits bank-details approve ID` (a second operator, PAYMENTS_TWO_OPERATORS).
 */
export async function bankDetails(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    strict: true,
    options: { routing: { type: 'string' }, account: { type: 'string' }, type: { type: 'string', default: 'checking' }, holder: { type: 'string' } },
  });
  if (positionals[0] === 'approve') {
    const accountId = id(positionals[1], 'the bank details ID');
    return withPlatform(async ({ deps }) => {
      const set = await approvePayeeAccount(deps, accountId, actor());
      process.stdout.write(`${set.non_profit} is paid by ACH to ${set.routing} ${set.account} from ${set.usable_from} (by check until then).\n`);
      return 0;
    });
  }
  if (positionals.length !== 1 || values.routing === undefined || values.account === undefined || values.holder === undefined) {
    throw new UsageError('nonprofits bank-details EIN --routing R --account A --holder NAME [--type checking|savings] | nonprofits bank-details approve ID');
  }
  const ein = positionals[0] as string;
  const input = { routing: values.routing, account: values.account, account_type: values.type, holder: values.holder };
  return withPlatform(async ({ deps }) => {
    const set = await setPayeeAccount(deps, ein, input, { actor: actor(), name: 'An operator of the platform' });
    process.stdout.write(
      set.status === 'pending'
        ? `${set.non_profit}'s new details ${set.routing} ${set.account} (ID ${set.id}) wait for a second operator: almoner nonprofits bank-details approve ${set.id}\n`
        : `${set.non_profit} is paid by ACH to ${set.routing} ${set.account} from ${set.usable_from} (by check until then).\n`,
    );
    return 0;
  });
}
