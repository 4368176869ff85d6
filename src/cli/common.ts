// What every `almoner` command shares: usage errors, the platform opened and
// closed around a command, who acts, and ids from the command line.
import { loadConfig } from '../config.ts';
import { openPlatform } from '../platform.ts';
import { makeLogger } from '../log.ts';
import { userInfo } from 'node:os';
import { rememberedPublicUrl } from '../modules/mail/index.ts';
import { demoPayments } from './demo-settings.ts';

export class UsageError extends Error {}

/** What a command over the whole database changes in the configuration: no statement timeout (0). */
export const WHOLE_DATABASE = { dbStatementTimeoutMs: 0 } as const;

/**
 * Opens the platform around `fn`. A command that reads or writes the whole
 * database (`whole`: check, import, copy) is no request: PostgreSQL's
 * statement timeout, which bounds a request's statements, does not apply to
 * it, so a large database or a busy machine slows it and never stops it.
 */
export async function withPlatform<T>(fn: (p: Awaited<ReturnType<typeof openPlatform>>) => Promise<T>, options: { whole?: boolean } = {}): Promise<T> {
  const loaded = loadConfig(process.env, options.whole === true ? WHOLE_DATABASE : {});
  // On the demo's database, the demo's settings for paying charities (its key, its sample ACH details).
  const payments = demoPayments(loaded, { create: false });
  const config = payments === undefined ? loaded : Object.freeze({ ...loaded, payments });
  const opened = await openPlatform(config, { log: makeLogger({ level: process.env.LOG_LEVEL ?? 'warn' }) });
  try {
    // Mail a command sends links to the platform's address: PUBLIC_URL, else the one its server recorded.
    const recorded = process.env.PUBLIC_URL === undefined || process.env.PUBLIC_URL === '' ? await rememberedPublicUrl(opened.deps) : undefined;
    const platform = recorded === undefined ? opened : { ...opened, deps: { ...opened.deps, config: { ...opened.deps.config, publicUrl: recorded } } };
    return await fn(platform);
  } finally {
    await opened.close();
  }
}

/** A long command's count on stderr as `line` words it: the first at once, then at most every two seconds. */
export function countProgress(line: (count: string) => string): (count: number) => void {
  let last = 0;
  return (count) => {
    if (Date.now() - last < 2000) return;
    last = Date.now();
    process.stderr.write(`${line(count.toLocaleString('en-US'))}\n`);
  };
}

/**
 * Who a CLI action is audited as: the operator named by ALMONER_OPERATOR
 * (`operator:<name>`), else the account running the command (`cli:<user>`).
 */
export function actor(): string {
  const named = process.env.ALMONER_OPERATOR?.trim();
  if (named !== undefined && named !== '') {
    if (!/^[\w.@-]{1,100}$/.test(named)) throw new UsageError('ALMONER_OPERATOR is a name of letters, digits and . _ @ - (at most 100)');
    return `operator:${named}`;
  }
  return `cli:${userInfo().username}`;
}

export function id(text: string | undefined, what: string): number {
  if (text === undefined || !/^[1-9][0-9]{0,15}$/.test(text)) throw new UsageError(`${what} must be a positive whole number, got ${JSON.stringify(text ?? '')}`);
  return Number(text);
}
