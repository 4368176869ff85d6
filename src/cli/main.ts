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
import { donationsWaiting } from './queue.ts';
import { demo } from './demo.ts';
import { notifyCommand } from './notify.ts';
import { nonprofitsCommand } from './directory.ts';
import { paymentsCommand } from './payments.ts';
import { VERSION } from '../version.ts';
import { USAGE, usageOf } from './usage.ts';

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
        return await (command === 'donations' && sub === 'waiting' ? donationsWaiting(rest) : operate(command, sub, rest));
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
    return reported(error, command);
  }
}

/** What a command that failed prints, and its exit code: 2 for a wrong use (with its usage lines), 1 for anything else. */
function reported(error: unknown, command: string | undefined): number {
  if (error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
    // The command's own lines, not a hundred: `almoner <command> --help` shows them again.
    const own = command === undefined ? undefined : usageOf(command);
    process.stderr.write(`almoner: ${(error as Error).message}\n\n${own ?? USAGE}${own === undefined ? '' : `\n(almoner --help lists every command)\n`}`);
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

if (import.meta.main) {
  const code = await run(process.argv.slice(2));
  if (code !== 0) process.exit(code);
}
