// The `almoner` commands as a table: each name, the module that runs it (loaded only when the
// command is given, so that one command never pays for the others) and how it is called. What
// each takes and says is its usage (usage.ts, `almoner <command> --help`).
import { parseArgs } from 'node:util';
import { UsageError } from './common.ts';

/** A command: given the words after its name (its subcommand first), the exit code. */
export type CommandRun = (sub: string | undefined, rest: string[]) => Promise<number>;

/** `almoner serve [--workers N]`. */
async function serveCommand(sub: string | undefined, rest: string[]): Promise<number> {
  const args = [sub, ...rest].filter((a): a is string => a !== undefined);
  const { values } = parseArgs({ args, strict: true, options: { workers: { type: 'string' } } });
  const workers = values.workers === undefined ? 1 : Number(values.workers);
  if (!Number.isInteger(workers) || workers < 1 || workers > 64) throw new UsageError('--workers must be a whole number from 1 to 64');
  const { serve } = await import('../main.ts');
  await serve(workers);
  return 0;
}

/** The operator commands of operate.ts, for a group. */
const operated =
  (group: string): CommandRun =>
  async (sub, rest) =>
    (await import('./operate.ts')).operate(group, sub, rest);

export const COMMANDS: Readonly<Record<string, CommandRun>> = {
  serve: serveCommand,
  demo: async () => {
    await (await import('./demo.ts')).demo();
    return 0;
  },
  migrate: async () => (await import('./db.ts')).migrateCommand(),
  check: async () => (await import('./db.ts')).checkCommand(),
  db: async (sub, rest) => (await import('./db.ts')).dbCommand(sub, rest),
  users: async (sub, rest) => (await import('./users.ts')).usersCommand(sub, rest),
  contributions: operated('contributions'),
  donations: async (sub, rest) => (sub === 'waiting' ? (await import('./queue.ts')).donationsWaiting(rest) : operated('donations')(sub, rest)),
  portfolio: operated('portfolio'),
  scheduler: operated('scheduler'),
  retention: operated('retention'),
  receipts: operated('receipts'),
  admin: operated('admin'),
  apps: operated('apps'),
  webhooks: async (sub, rest) => (await import('./notify.ts')).notifyCommand('webhooks', sub, rest),
  mail: async (sub, rest) => (await import('./notify.ts')).notifyCommand('mail', sub, rest),
  nonprofits: async (sub, rest) => (await import('./directory.ts')).nonprofitsCommand(sub, rest),
  payments: async (sub, rest) => (await import('./payments.ts')).paymentsCommand(sub, rest),
  portfolios: async (sub, rest) => (await import('./portfolios.ts')).portfoliosCommand(sub, rest),
  prices: async (sub, rest) => (await import('./portfolios.ts')).pricesCommand(sub, rest),
  valuation: async (sub, rest) => (await import('./portfolios.ts')).valuationCommand(sub, rest),
  deaths: async (sub, rest) => (await import('./deaths.ts')).deathsCommand(sub, rest),
  ledger: async (sub, rest) => (await import('./ledger.ts')).ledgerCommand(sub, rest),
  verify: async (sub, rest) => (await import('./ledger.ts')).verifyCommand(sub, rest),
};
