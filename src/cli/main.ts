// `almoner <command>`: thin adapters over the service functions; no SQL here.
import { portfoliosCommand, pricesCommand, valuationCommand } from './portfolios.ts';
import { deathsCommand } from './deaths.ts';
import { sqlitePathOf } from '../db/database.ts';
import { parseArgs } from 'node:util';
import { loadConfig } from '../config.ts';
import { openPlatform } from '../platform.ts';
import { serve } from '../main.ts';
import { createUserWithKey } from '../modules/users/index.ts';
import { addAccount, inviteUser } from '../modules/accounts/index.ts';
import { slugify } from '../modules/nonprofits/index.ts';
import { makeLogger } from '../log.ts';
import { existsSync } from 'node:fs';
import { backup as sqliteBackup } from 'node:sqlite';
import { assert } from '../shared/assert.ts';
import { copyDatabase } from '../db/copy.ts';
import { AppError } from '../shared/errors.ts';
import { formatCheck, runAndRecordCheck, runCheck } from '../modules/check/index.ts';

import { UsageError, WHOLE_DATABASE, actor, withPlatform } from './common.ts';
import { operate } from './operate.ts';
import { demo } from './demo.ts';
import { notifyCommand } from './notify.ts';
import { nonprofitsCommand } from './directory.ts';
import { paymentsCommand } from './payments.ts';
import { VERSION } from '../version.ts';
const USAGE = `Usage: almoner <command> [options]

Commands:
  serve [--workers N]        Start the API server (DATABASE_URL, PORT, HOST; see README); N processes share the port
  demo                       Load demo data if the database is empty, print a key, start the server
  migrate                    Bring the database schema up to date and exit
  check                      Verify every ledger invariant; exit 1 with a report if one fails
  --version                  The release of Almoner (and of Node) this is

  users create --name NAME [--slug SLUG] [--city CITY] [--private] [--key-name NAME] [--test]
               [--email EMAIL --password PASSWORD | --invite]
                             Create a user with a fund and print a new API key (--test: a sandbox key;
                             --email and --password: they can sign in to the web app; --invite: a
                             one-time link for them to choose their sign-in)
  users list [--page N]      Users with their funds
  users suspend ID | users reactivate ID
  users statement ID         Balances and every journal line of the user's fund
  users invite ID            A one-time link for the user to choose their sign-in (email, password)
  users export ID            Everything stored about a user (and their sandbox twin), as JSON
  users forget ID --yes      Pseudonymise a user for good; the ledger keeps its amounts (audited)

  contributions record --user ID --type TYPE --units U --valuation V --currency C [--status S] [--frequency F]
  contributions advance ID --to pending|success|failed
  contributions awaiting [--reference REF]
                             Declared contributions waiting for their money, oldest first
  contributions receive REF|ID --amount DOLLARS | --units U --valuation V [--source TEXT] [--force]
                             Record what arrived for a declaration (cash: --amount DOLLARS; stock: the
                             shares and the day's price, --source where it came from); it becomes pending
                             with that money. More than 10% away from the declaration is refused without --force
  contributions correct-receipt ID --reason TEXT
                             A new receipt that replaces the newest one and says why; both remain

  donations approve|pay|mail-check|cash|void ID...
  donations reject ID... --reason TEXT
  donations pay-all-approved Pay every approved donation

  portfolio invest|liquidate --user ID --amount DOLLARS
  portfolios list | retire ID
  portfolios create --name NAME --risk low|medium|high --fee-bps N --holdings SYMBOL:WEIGHT,... [--description TEXT]
                             The portfolios donors may choose: what each holds (weights sum to 100), its annual fee
  prices import FILE         Prices from a CSV whose header names symbol, price and time; a bad, duplicate or
                             future row refuses the whole file
  valuation run [--at TIME]  Every portfolio's unit price from its holdings' prices at TIME (default now)
  deaths list [--status recorded|approved]
  deaths record --user ID --document REFERENCE
                             Record the death of a fund's holder (audited); nothing happens until a second
                             operator (ALMONER_OPERATOR) runs: deaths approve ID, and the fund's successor plan runs
  scheduler run [--date YYYY-MM-DD]   Make the recurring donations due by the date (default today)
  receipts repair                     Issue the receipt of every succeeded contribution without one (an older
                                      release's node made it succeed); servers do it every minute
  retention run                       Delete what is past its RETAIN_* age (idempotency keys, expired
                                      sessions, failed sign-ins, events); servers do it hourly
  nonprofits import [FILES_OR_FOLDERS...] [--zips FILE] [--revocations FILE] [--pub78 FILE] [--sdn FILE] [--as-of DATE]
                             Import IRS EO BMF files (.csv or .csv.gz) into the directory, and the due diligence
                             lists (the IRS auto-revocation list and Publication 78 data as published, .txt or .gz;
                             the OFAC SDN list, sdn.csv), each a snapshot as of DATE (default today); then
                             screen every organisation against the lists
  nonprofits download [--to DIR] [--mirror URL]
                             Fetch the IRS master files and the three lists from their official addresses
                             (default ./data/irs), ready for nonprofits import
  nonprofits screen          Screen every organisation against the current lists again
  nonprofits reviews         Close name matches against the sanctions list waiting for an operator
  nonprofits review ID --clear|--confirm --note TEXT
                             Decide one: not the listed party (may be paid), or it is (refused from now on)
  nonprofits claims [--status pending|unconfirmed|approved|rejected]
                             People's claims to act for an organisation (by default those waiting for a decision)
  nonprofits claim ID --approve|--reject --note TEXT
                             Decide one: the person sees the organisation's payments and gives its bank details
  nonprofits bank-details EIN --routing R --account A --holder NAME [--type checking|savings]
                             An organisation's bank details for ACH (sealed with PAYEE_DATA_KEY; ACH after
                             PAYEE_COOLING_OFF_DAYS, checks until then); with PAYMENTS_TWO_OPERATORS they wait
  nonprofits bank-details approve ID
                             A second operator puts bank details another one typed in force
  payments run open --date YYYY-MM-DD
                             Open the payment run of a date: approved donations of still-eligible
                             organisations, one payment each (ACH or check); ineligible ones rejected
  payments run list | show ID
  payments run approve ID    A second operator approves an open run (needed to submit with PAYMENTS_TWO_OPERATORS)
  payments run withdraw ID --reason TEXT
                             Withdraw an open run: its donations stay approved and wait for another run
  payments run submit ID     Screen each organisation again, leave out what no longer clears, send the rest
  payments run ach|checks|positive-pay|remittances ID --out FILE
                             The run's NACHA file, check register, positive-pay file or remittance advice (PDF)
  payments return ID --code R03 | cash ID | void ID --reason TEXT
                             A payment's outcome: an ACH return, a check cashed or voided (money back to donors)
  payments returns --file F  Record the returns a bank's NACHA return file lists
  payments checks-paid --file F
                             Record the checks a bank's paid-checks file lists (CSV: check_number, amount, paid_date)
  payments exceptions [list] | resolve ID --as recovered|charged --note TEXT
                             Checks the bank paid after they were voided; resolve one once: recovered, or charged
  payments void-stale [--as-of YYYY-MM-DD]
                             Void every check not cashed within CHECK_STALE_DAYS of its date (as of a past day if given)
  admin token create --name NAME [--operator PERSON] [--days N]
                                      An operator token for /admin/v1 (shown once); expires after N days if given
  admin token list                    Operator tokens: state, expiry, last use (never the token)
  admin token revoke ID               Revoke an operator token at once
  apps list                  Apps registered for Login with Almoner: state, book, donors connected
  apps disable CLIENT_ID [--reason TEXT] | apps enable CLIENT_ID
                             Refuse an app's sign-ins, tokens and id tokens at once (audited), or allow them again
  apps rotate-signing-key    A new key signs id tokens (on each node after its restart); older ones verify until retired
  webhooks status            Events waiting to be relayed; webhook deliveries and mail waiting, failed; failing endpoints
  webhooks deliver [--once]  Relay events and send webhooks and mail (a node that only delivers; servers do it too)
  webhooks replay --endpoint ID --since DATE
                             Send an endpoint's events since DATE again (with their first webhook-id)
  mail list [--limit N]      The newest messages: state, recipient, subject, and the .eml file without SMTP_URL
  db backup --to FILE        An online, consistent copy of the SQLite database (the server may keep running)
  db copy --from sqlite:PATH --to postgres://...
                             Move a whole platform from SQLite to an empty PostgreSQL database, verified

The users, contributions, donations, portfolio and payments commands act on live users and money only;
add --sandbox to act on the sandbox twins' instead (sandbox and live are two books).
`;

async function usersCreate(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      name: { type: 'string' },
      slug: { type: 'string' },
      city: { type: 'string' },
      private: { type: 'boolean', default: false },
      'key-name': { type: 'string', default: 'cli' },
      test: { type: 'boolean', default: false },
      email: { type: 'string' },
      password: { type: 'string' },
      invite: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.invite && values.email !== undefined) throw new UsageError('--invite lets the person choose their email and password: give it without --email and --password');
  if ((values.email === undefined) !== (values.password === undefined)) throw new UsageError('--email and --password go together (the user signs in to the web app with them)');
  const name = values.name?.trim() ?? '';
  if (name === '' || name.length > 200) throw new UsageError('--name is required (1 to 200 characters)');
  if (values.slug !== undefined && !/^[a-z0-9-]{1,60}$/i.test(values.slug)) throw new UsageError('--slug takes letters, digits and dashes (at most 60)');
  await withPlatform(async ({ deps }) => {
    const { email, password } = values;
    let invited: { url: string; expires_at: string } | undefined;
    const created = await createUserWithKey(
      deps,
      { name, slug: values.slug, city: values.city, visible: !values.private },
      { name: values['key-name'], mode: values.test ? 'test' : 'live' },
      actor(),
      async (trx, userId) => {
        if (email !== undefined && password !== undefined) await addAccount(deps, userId, email, password, trx);
        if (values.invite) invited = await inviteUser(deps, userId, trx);
      },
    );
    const wanted = slugify(values.slug ?? name);
    process.stdout.write(`Created user ${created.user_id} (${created.slug}) with fund ${created.fund_id}.\n`);
    if (created.slug !== wanted) process.stdout.write(`Note: this user's profile is /${created.slug} (not /${wanted}: taken, reserved or too long).\n`);
    if (values.email !== undefined) process.stdout.write(`They sign in to the web app as ${values.email}.\n`);
    if (invited !== undefined) process.stdout.write(`Sign-in invitation (send it to them; it works once, until ${invited.expires_at}): ${invited.url}\n`);
    process.stdout.write(`API key (shown once): ${created.key.key}\n`);
  });
}

/** SQLite's online backup: pages are copied while other connections keep reading and writing. */
async function dbBackup(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, strict: true, options: { to: { type: 'string' } } });
  if (values.to === undefined || values.to.trim() === '') throw new UsageError('--to FILE is required');
  if (existsSync(values.to)) throw new UsageError(`${values.to} exists: give a new file`);
  const config = loadConfig();
  if (!config.databaseUrl.startsWith('sqlite:')) throw new UsageError('db backup is for the SQLite engine; back PostgreSQL up with pg_dump (docs/operating.md)');
  return withPlatform(async ({ handle }) => {
    assert(handle.sqlite !== undefined, 'an SQLite platform has its raw handle');
    const pages = await sqliteBackup(handle.sqlite.raw, values.to as string);
    process.stdout.write(`Backed up ${config.databaseUrl} to ${values.to} (${pages} pages).\n`);
    return 0;
  });
}

async function dbCopy(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, strict: true, options: { from: { type: 'string' }, to: { type: 'string' } } });
  if (values.from === undefined || !values.from.startsWith('sqlite:')) throw new UsageError('--from must be sqlite:PATH');
  if (values.to === undefined || !/^postgres(ql)?:\/\//.test(values.to)) throw new UsageError('--to must be a postgres:// URL');
  if (!existsSync(sqlitePathOf(values.from) ?? '')) throw new UsageError(`no SQLite file at ${values.from}`);
  const log = makeLogger({ level: 'warn' });
  const source = await openPlatform(loadConfig({}, { ...WHOLE_DATABASE, databaseUrl: values.from }), { log });
  try {
    const target = await openPlatform(loadConfig({}, { ...WHOLE_DATABASE, databaseUrl: values.to }), { log });
    try {
      const report = await copyDatabase(source.handle, target.handle, (table, rows) => process.stderr.write(`copied ${table}: ${rows}\n`));
      const mismatched = report.tables.filter((t) => t.source !== t.target);
      for (const t of report.tables)
        process.stdout.write(`${t.table.padEnd(22)} ${String(t.source).padStart(10)} -> ${String(t.target).padStart(10)}${t.source === t.target ? '' : '  MISMATCH'}\n`);
      const { ok, text } = formatCheck(await runCheck(target.deps));
      process.stdout.write(text);
      if (mismatched.length > 0 || !ok) return 1;
      process.stdout.write('Copied and verified: the row counts match and every invariant holds on the target.\n');
      return 0;
    } finally {
      await target.close();
    }
  } finally {
    await source.close();
  }
}

async function check(): Promise<number> {
  return withPlatform(
    async ({ deps }) => {
      const { ok, text } = formatCheck(await runAndRecordCheck(deps));
      (ok ? process.stdout : process.stderr).write(text);
      return ok ? 0 : 1;
    },
    { whole: true },
  );
}

export async function run(argv: string[]): Promise<number> {
  const [command, sub, ...rest] = argv;
  // `almoner users list | head`: once the reader has gone, stop quietly as Unix tools do, not with an EPIPE stack.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit(0);
  });
  try {
    switch (command) {
      case '--version':
      case 'version':
        process.stdout.write(`almoner ${VERSION} (Node ${process.versions.node})\n`);
        return 0;
      case 'serve': {
        const { values } = parseArgs({ args: [sub, ...rest].filter((a): a is string => a !== undefined), strict: true, options: { workers: { type: 'string' } } });
        const workers = values.workers === undefined ? 1 : Number(values.workers);
        if (!Number.isInteger(workers) || workers < 1 || workers > 64) throw new UsageError('--workers must be a whole number from 1 to 64');
        await serve(workers);
        return 0;
      }
      case 'demo':
        await demo();
        return 0;
      case 'migrate':
        await withPlatform(async () => {
          process.stdout.write('Database schema is up to date.\n');
        });
        return 0;
      case 'check':
        return await check();
      case 'users':
        if (sub === 'create') {
          await usersCreate(rest);
          return 0;
        }
        return await operate('users', sub, rest);
      case 'contributions':
      case 'donations':
      case 'portfolio':
      case 'scheduler':
      case 'retention':
      case 'receipts':
      case 'admin':
      case 'apps':
        return await operate(command, sub, rest);
      case 'webhooks':
      case 'mail':
        return await notifyCommand(command, sub, rest);
      case 'db':
        if (sub === 'copy') return await dbCopy(rest);
        if (sub === 'backup') return await dbBackup(rest);
        throw new UsageError(`unknown db command: ${sub ?? '(none)'}`);
      case 'nonprofits':
        return await nonprofitsCommand(sub, rest);
      case 'payments':
        return await paymentsCommand(sub, rest);
      case 'portfolios':
        return await portfoliosCommand(sub, rest);
      case 'prices':
        return await pricesCommand(sub, rest);
      case 'valuation':
        return await valuationCommand(sub, rest);
      case 'deaths':
        return await deathsCommand(sub, rest);
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        process.stdout.write(USAGE);
        return 0;
      default:
        throw new UsageError(`unknown command: ${command}`);
    }
  } catch (error) {
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`almoner: ${(error as Error).message}\n\n${USAGE}`);
      return 2;
    }
    if (error instanceof AppError) {
      const fields = error.errors?.map((e) => `\n  ${e.field}: ${e.message}`).join('') ?? '';
      process.stderr.write(`almoner: ${error.message} (${error.code})${fields}\n`);
      return 1;
    }
    process.stderr.write(`almoner: ${(error as Error).message}\n`);
    return 1;
  }
}

if (import.meta.main) {
  const code = await run(process.argv.slice(2));
  if (code !== 0) process.exit(code);
}
