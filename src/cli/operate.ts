// The operator commands of `almoner`: users, contributions, donations,
// portfolio, the scheduler and operator tokens, over the same use cases as /admin/v1.
// Each is a function of its parsed arguments (operate.run.ts), found in one table.
import { centsToDollars, parseDollars } from '../shared/money.ts';
import { fundOfUser, listUsers, setUserStatus, statement } from '../modules/users/index.ts';
import type { Book } from '../shared/book.ts';
import {
  advanceContribution,
  correctReceipt,
  repairReceipts,
  recordContribution,
  CONTRIBUTION_TYPES,
  type ContributionStatus,
  type ContributionType,
  type Frequency,
} from '../modules/contributions/index.ts';
import { applyDonationEventToMany, donationIdsInStatus, type DonationEvent } from '../modules/donations/index.ts';
import { movePortfolio } from '../modules/portfolio/index.ts';
import { isDate, runScheduler } from '../modules/scheduled/index.ts';
import { runRetention } from '../modules/retention/index.ts';
import { exportUser, forgetUser } from '../modules/privacy/index.ts';
import { inviteUser } from '../modules/accounts/index.ts';

import { actor, id, UsageError, withPlatform } from './common.ts';
import { moneyIn } from './money-in.ts';
import { out, parse, type Run } from './operate.run.ts';
import { adminToken, appsDisable, appsList, appsRotateSigningKey } from './operate.apps.ts';

const DONATION_EVENTS: Record<string, DonationEvent> = { approve: 'approve', reject: 'reject', pay: 'pay', 'mail-check': 'mail_check', cash: 'cash_check', void: 'void_check' };

/**
 * The options each command takes (besides --sandbox, which the users, contributions, donations and
 * portfolio commands take): any other is refused with the command's usage, never ignored.
 */
const OPTIONS_OF: Readonly<Record<string, readonly string[]>> = {
  'users list': ['page'],
  'users forget': ['yes'],
  'contributions record': ['user', 'type', 'units', 'valuation', 'currency', 'status', 'frequency'],
  'contributions advance': ['to'],
  'contributions awaiting': ['reference'],
  'contributions receive': ['units', 'valuation', 'amount', 'source', 'force'],
  'contributions correct-value': ['units', 'valuation', 'amount', 'source', 'reason'],
  'contributions correct-receipt': ['reason'],
  'donations reject': ['reason'],
  'portfolio invest': ['user', 'amount'],
  'portfolio liquidate': ['user', 'amount'],
  'scheduler run': ['date'],
  'admin token create': ['name', 'days', 'operator'],
  'apps disable': ['reason'],
};
const BOOKED = new Set(['users', 'contributions', 'donations', 'portfolio']);

/** Refuses an option the command does not take (exit 2 with its usage), naming the command. */
function refuseOthers(command: string, given: readonly string[]): void {
  const group = command.split(' ')[0] ?? '';
  const takes = [...(OPTIONS_OF[command] ?? []), ...(BOOKED.has(group) ? ['sandbox'] : [])];
  const other = given.filter((name) => !takes.includes(name));
  if (other.length === 0) return;
  const takesText = takes.length === 0 ? 'no options' : takes.map((t) => `--${t}`).join(', ');
  throw new UsageError(`almoner ${command} does not take ${other.map((o) => `--${o}`).join(', ')} (it takes ${takesText})`);
}

async function usersList({ values, book }: Run): Promise<number> {
  const page = values.page === undefined ? 1 : id(values.page, '--page');
  return withPlatform(async ({ deps }) => {
    const { items, count } = await listUsers(deps, book, { page, per_page: 50 });
    for (const u of items) out(`${String(u.id).padStart(6)}  ${u.slug.padEnd(24)} ${u.status.padEnd(10)} ${u.visible ? 'visible' : 'hidden '}  fund ${u.fund_id} ${u.fund_name}`);
    out(`${count} users; page ${page}`);
    return 0;
  });
}

async function usersStatus({ positionals, sub }: Run): Promise<number> {
  const userId = id(positionals[0], 'the user id');
  return withPlatform(async ({ deps }) => {
    await setUserStatus(deps, userId, sub === 'suspend' ? 'suspended' : 'active', actor());
    out(`User ${userId} is ${sub === 'suspend' ? 'suspended: their keys stop working now' : 'active again'}.`);
    return 0;
  });
}

async function usersInvite({ positionals }: Run): Promise<number> {
  const userId = id(positionals[0], 'the user id');
  return withPlatform(async ({ deps }) => {
    const invited = await inviteUser(deps, userId);
    out(`Sign-in invitation for user ${userId} (send it to them; it works once, until ${invited.expires_at}): ${invited.url}`);
    return 0;
  });
}

async function usersExport({ positionals }: Run): Promise<number> {
  const userId = id(positionals[0], 'the user id');
  return withPlatform(async ({ deps }) => {
    out(JSON.stringify(await exportUser(deps, userId), null, 2));
    return 0;
  });
}

async function usersForget({ values, positionals }: Run): Promise<number> {
  const userId = id(positionals[0], 'the user id');
  if (values.yes !== true) throw new UsageError('users forget pseudonymises a person for good: add --yes to confirm');
  const who = actor();
  return withPlatform(async ({ deps }) => {
    await forgetUser(deps, userId, who);
    out(`User ${userId} is forgotten: their name, profile, notes, sign-in and keys are gone; the ledger keeps its amounts.`);
    return 0;
  });
}

async function usersStatement({ positionals, book }: Run): Promise<number> {
  const userId = id(positionals[0], 'the user id');
  return withPlatform(async ({ deps }) => {
    const s = await statement(deps, book, userId);
    out(`Statement for ${s.user.name} (${s.user.slug}), fund ${s.fund.id} "${s.fund.name}"`);
    out(
      `  amount ${centsToDollars(s.balances.amount_cents)}  available ${centsToDollars(s.balances.available_balance_cents)}  pending deposits ${centsToDollars(s.balances.pending_deposit_balance_cents)}  portfolio ${centsToDollars(s.balances.portfolio_balance_cents)}`,
    );
    for (const l of s.lines) {
      const cause =
        l.donation_id !== null
          ? `donation ${l.donation_id}`
          : l.gift_id !== null
            ? `gift ${l.gift_id}`
            : l.contribution_id !== null
              ? `contribution ${l.contribution_id}`
              : `operator action ${l.audit_id}`;
      out(`  ${l.created_at}  entry ${String(l.entry_id).padStart(6)}  ${l.account.padEnd(16)} ${String(centsToDollars(l.amount_cents)).padStart(12)}  ${l.memo} (${cause})`);
    }
    return 0;
  });
}

async function contributionsRecord({ values, book }: Run): Promise<number> {
  const userId = id(values.user, '--user');
  for (const required of ['type', 'units', 'valuation', 'currency'] as const) if (values[required] === undefined) throw new UsageError(`--${required} is required`);
  if (!(CONTRIBUTION_TYPES as readonly string[]).includes(values.type as string)) throw new UsageError(`--type must be one of ${CONTRIBUTION_TYPES.join(', ')}`);
  return withPlatform(async ({ deps }) => {
    const fund = await fundOfUser(deps, book, userId);
    const contributionId = await recordContribution(
      deps,
      {
        user_id: userId,
        fund_id: fund.id,
        type: values.type as ContributionType,
        units: values.units as string,
        valuation: values.valuation as string,
        currency: values.currency as string,
        frequency: (values.frequency ?? 'OneTime') as Frequency,
        status: (values.status ?? 'pending') as ContributionStatus,
      },
      actor(),
    );
    out(`Recorded contribution ${contributionId}.`);
    return 0;
  });
}

async function contributionsAdvance({ values, positionals, book }: Run): Promise<number> {
  const contributionId = id(positionals[0], 'the contribution id');
  if (!['pending', 'success', 'failed'].includes(values.to ?? '')) throw new UsageError('--to must be pending, success or failed');
  return withPlatform(async ({ deps }) => {
    await advanceContribution(deps, book, contributionId, values.to as ContributionStatus, actor());
    out(`Contribution ${contributionId} is ${values.to}.`);
    return 0;
  });
}

async function moneyInCommand({ values, positionals, book, key }: Run): Promise<number> {
  return await moneyIn(key, values, positionals, book);
}

async function contributionsCorrectReceipt({ values, positionals, book }: Run): Promise<number> {
  const contributionId = id(positionals[0], 'the contribution id');
  if (values.reason === undefined) throw new UsageError('--reason is required: the new receipt states why it replaces the old one');
  return withPlatform(async ({ deps }) => {
    const number = await correctReceipt(deps, book, contributionId, values.reason as string, actor());
    out(`Receipt ${number} issued for contribution ${contributionId}; it replaces the previous one, which remains.`);
    return 0;
  });
}

async function donationEvents({ values, positionals, book, sub }: Run): Promise<number> {
  const all = sub === 'pay-all-approved';
  const event = all ? 'pay' : DONATION_EVENTS[sub as string];
  if (event === undefined) throw new UsageError(`unknown donations command: ${sub}`);
  const ids = all ? [] : positionals.map((p) => id(p, 'a donation id'));
  if (!all && ids.length === 0) throw new UsageError('give at least one donation id');
  if (event === 'reject' && (values.reason ?? '').trim() === '') throw new UsageError('--reason is required to reject');
  return withPlatform(async ({ deps }) => {
    const options = { actor: actor(), ...(values.reason === undefined ? {} : { reason: values.reason }) };
    if (all) {
      // A thousand at a time, each thousand all or none: a stop part-way leaves whole batches paid.
      let paid = 0;
      for (;;) {
        const batch = await donationIdsInStatus(deps, book, 'approved', 1000);
        if (batch.length === 0) break;
        const result = await applyDonationEventToMany(deps, book, batch, event, options);
        paid += result.done.length;
        out(`pay: ${paid} done so far`);
        if (result.done.length === 0) break;
      }
      out(`pay: ${paid} done`);
      return 0;
    }
    const result = await applyDonationEventToMany(deps, book, ids, event, options);
    out(`${event.replace('_', ' ')}: ${result.done.length} done${result.done.length > 0 ? ` (${result.done.join(', ')})` : ''}`);
    for (const s of result.skipped) process.stderr.write(`  donation ${s.id}: skipped (${s.code})\n`);
    return result.skipped.length > 0 ? 1 : 0;
  });
}

async function portfolioMove({ values, book, sub }: Run): Promise<number> {
  const userId = id(values.user, '--user');
  const amount = parseDollars(Number(values.amount ?? 'x'));
  if (values.amount === undefined || !/^\d+(\.\d{1,2})?$/.test(values.amount) || !amount.ok || amount.cents <= 0)
    throw new UsageError('--amount must be dollars with at most 2 decimals, more than 0');
  return withPlatform(async ({ deps }) => {
    const fund = await fundOfUser(deps, book, userId);
    await movePortfolio(deps, fund.id, sub as 'invest' | 'liquidate', amount.cents, actor());
    out(`${sub === 'invest' ? 'Invested' : 'Liquidated'} ${values.amount} for user ${userId}.`);
    return 0;
  });
}

async function schedulerRun({ values }: Run): Promise<number> {
  if (values.date !== undefined && !isDate(values.date)) throw new UsageError('--date must be YYYY-MM-DD');
  return withPlatform(async ({ deps }) => {
    const { created } = await runScheduler(deps, values.date);
    out(`Made ${created} donation${created === 1 ? '' : 's'} from recurring donations.`);
    return 0;
  });
}

async function receiptsRepair(_run: Run): Promise<number> {
  return withPlatform(async ({ deps }) => {
    const issued = await repairReceipts(deps);
    out(issued === 0 ? 'Every succeeded contribution has its receipt.' : `Issued ${issued} missing receipt${issued === 1 ? '' : 's'}.`);
    return 0;
  });
}

async function retentionRun(_run: Run): Promise<number> {
  return withPlatform(async ({ deps }) => {
    const deleted = await runRetention(deps);
    out(
      `Deleted ${deleted.idempotency_keys} idempotency keys, ${deleted.web_sessions} expired sessions, ${deleted.sign_in_failures} failed sign-ins, ${deleted.events} events and ${deleted.login_records} expired sign-in records past their age.`,
    );
    return 0;
  });
}

/** Each command, by its words. */
const COMMANDS: Readonly<Record<string, (run: Run) => Promise<number>>> = {
  'users list': usersList,
  'users suspend': usersStatus,
  'users reactivate': usersStatus,
  'users invite': usersInvite,
  'users export': usersExport,
  'users forget': usersForget,
  'users statement': usersStatement,
  'contributions record': contributionsRecord,
  'contributions advance': contributionsAdvance,
  'contributions awaiting': moneyInCommand,
  'contributions receive': moneyInCommand,
  'contributions correct-value': moneyInCommand,
  'contributions correct-receipt': contributionsCorrectReceipt,
  'donations pay-all-approved': donationEvents,
  'donations approve': donationEvents,
  'donations reject': donationEvents,
  'donations pay': donationEvents,
  'donations mail-check': donationEvents,
  'donations cash': donationEvents,
  'donations void': donationEvents,
  'portfolio invest': portfolioMove,
  'portfolio liquidate': portfolioMove,
  'scheduler run': schedulerRun,
  'receipts repair': receiptsRepair,
  'retention run': retentionRun,
  'admin token': adminToken,
  'apps list': appsList,
  'apps disable': appsDisable,
  'apps enable': appsDisable,
  'apps rotate-signing-key': appsRotateSigningKey,
};

/** The operator commands: each parses its arguments fully before touching the database. */
export async function operate(group: string, sub: string | undefined, args: string[]): Promise<number> {
  const { values, positionals } = parse(args);
  const book: Book = values.sandbox === true ? 'test' : 'live';
  const key = `${group} ${sub ?? ''}`.trim();
  const given = Object.entries(values)
    .filter(([, value]) => value !== undefined && value !== false)
    .map(([name]) => name);
  refuseOthers(key === 'admin token' ? `admin token ${positionals[0] ?? ''}`.trim() : key, given);
  const command = COMMANDS[key];
  if (command === undefined) throw new UsageError(`unknown command: ${key}`);
  return command({ values, positionals, book, sub, key });
}
