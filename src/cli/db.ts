// `almoner migrate`, `almoner check` and `almoner db backup|copy`: the database as a whole.
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { backup as sqliteBackup } from 'node:sqlite';
import { sqlitePathOf } from '../db/database.ts';
import { copyDatabase } from '../db/copy.ts';
import { loadConfig } from '../config.ts';
import { openPlatform } from '../platform.ts';
import { makeLogger } from '../log.ts';
import { assert } from '../shared/assert.ts';
import { formatCheck, runAndRecordCheck, runCheck } from '../modules/check/index.ts';
import { UsageError, WHOLE_DATABASE, withPlatform } from './common.ts';

export async function dbCommand(sub: string | undefined, rest: string[]): Promise<number> {
  if (sub === 'copy') return dbCopy(rest);
  if (sub === 'backup') return dbBackup(rest);
  throw new UsageError(`unknown db command: ${sub ?? '(none)'}`);
}

/** Opening the platform brings the schema up to date. */
export async function migrateCommand(): Promise<number> {
  await withPlatform(async () => {
    process.stdout.write('Database schema is up to date.\n');
  });
  return 0;
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

export async function checkCommand(): Promise<number> {
  return withPlatform(
    async ({ deps }) => {
      const { ok, text } = formatCheck(await runAndRecordCheck(deps));
      (ok ? process.stdout : process.stderr).write(text);
      return ok ? 0 : 1;
    },
    { whole: true },
  );
}
