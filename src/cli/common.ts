// What every `almoner` command shares: usage errors, the platform opened and
// closed around a command, who acts, and ids from the command line.
import { loadConfig } from '../config.ts';
import { openPlatform } from '../platform.ts';
import pino from 'pino';
import { userInfo } from 'node:os';

export class UsageError extends Error {}

export async function withPlatform<T>(fn: (p: Awaited<ReturnType<typeof openPlatform>>) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const platform = await openPlatform(config, { log: pino({ level: process.env.LOG_LEVEL ?? 'warn' }) });
  try {
    return await fn(platform);
  } finally {
    await platform.close();
  }
}

export const actor = () => `cli:${userInfo().username}`;

export function id(text: string | undefined, what: string): number {
  if (text === undefined || !/^[1-9][0-9]{0,15}$/.test(text)) throw new UsageError(`${what} must be a positive whole number, got ${JSON.stringify(text ?? '')}`);
  return Number(text);
}
