// `almoner <command>`: thin adapters over the service functions; no SQL here.
import { parseArgs } from 'node:util';
import { loadConfig } from '../config.ts';
import { openPlatform } from '../platform.ts';
import { buildApp } from '../app.ts';
import { serve } from '../main.ts';
import { seedDemo } from '../demo/seed.ts';
import { createKey } from '../modules/keys/index.ts';
import { createUser } from '../modules/users/index.ts';
import pino from 'pino';

const USAGE = `Usage: almoner <command> [options]

Commands:
  serve                      Start the API server (DATABASE_URL, PORT, HOST; see docs/configuration.md)
  demo                       Load demo data if the database is empty, print a key, start the server
  migrate                    Bring the database schema up to date and exit
  users create --name NAME [--slug SLUG] [--city CITY] [--private] [--key-name NAME] [--test]
                             Create a user with a fund and print a new API key
`;

class UsageError extends Error {}

async function withPlatform<T>(fn: (p: Awaited<ReturnType<typeof openPlatform>>) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const platform = await openPlatform(config, { log: pino({ level: process.env.LOG_LEVEL ?? 'warn' }) });
  try {
    return await fn(platform);
  } finally {
    await platform.close();
  }
}

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
    },
    strict: true,
  });
  const name = values.name?.trim() ?? '';
  if (name === '' || name.length > 200) throw new UsageError('--name is required (1 to 200 characters)');
  if (values.slug !== undefined && !/^[a-z0-9-]{1,60}$/i.test(values.slug)) throw new UsageError('--slug takes letters, digits and dashes (at most 60)');
  await withPlatform(async ({ deps }) => {
    const created = await deps.db.transaction().execute(async (trx) => {
      const user = await createUser(deps, { name, slug: values.slug, city: values.city, visible: !values.private }, trx);
      const key = await createKey(deps, user.user_id, values['key-name'], values.test ? 'test' : 'live', trx);
      return { ...user, key: key.key };
    });
    process.stdout.write(`Created user ${created.user_id} (${created.slug}) with fund ${created.fund_id}.\nAPI key (shown once): ${created.key}\n`);
  });
}

async function demo(): Promise<void> {
  const config = loadConfig();
  const platform = await openPlatform(config);
  const result = await seedDemo(platform.deps);
  let key = result.key;
  if (!result.created) {
    const ada = await platform.deps.db.selectFrom('users').select('id').where('slug', '=', 'ada').executeTakeFirst();
    if (ada !== undefined) key = (await createKey(platform.deps, ada.id, 'demo', 'live')).key;
  }
  const app = await buildApp(platform.deps);
  await app.listen({ host: config.host, port: config.port });
  const base = `http://${config.host === '0.0.0.0' ? 'localhost' : config.host}:${config.port}`;
  process.stdout.write([
    '',
    `Almoner is running at ${base} on ${config.databaseUrl}${result.created ? ' (demo data loaded)' : ''}`,
    key !== undefined ? `Demo API key for Ada Lovelace (shown once): ${key}` : 'No demo user "ada" here: create one with `npx almoner users create --name NAME`.',
    key !== undefined ? `Try:  curl -s -H 'X-Api-Key: ${key}' ${base}/v1/donations` : '',
    `API reference: ${base}/docs    OpenAPI: ${base}/openapi.json`,
    'Stop with Ctrl-C.',
    '',
  ].join('\n'));
  const stop = async () => {
    await app.close();
    await platform.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
}

export async function run(argv: string[]): Promise<number> {
  const [command, sub, ...rest] = argv;
  try {
    switch (command) {
      case 'serve': await serve(); return 0;
      case 'demo': await demo(); return 0;
      case 'migrate': await withPlatform(async () => { process.stdout.write('Database schema is up to date.\n'); }); return 0;
      case 'users':
        if (sub === 'create') { await usersCreate(rest); return 0; }
        throw new UsageError(`unknown users command: ${sub ?? '(none)'}`);
      case undefined: case 'help': case '--help': case '-h':
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
    process.stderr.write(`almoner: ${(error as Error).message}\n`);
    return 1;
  }
}

if (import.meta.main) {
  const code = await run(process.argv.slice(2));
  if (code !== 0) process.exit(code);
}
