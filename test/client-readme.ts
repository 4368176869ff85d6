// The client README's examples (its "```ts example" blocks), the world they expect (a donor with
// $1,000 and the Red Cross in the directory), and what each prints. Run as TypeScript inside the
// repository (test/client.test.ts) and as plain JavaScript from the packed package on the
// machine's own Node and in a browser (test/client-package.test.ts): the blocks use no syntax
// that only TypeScript has.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import pino from 'pino';
import { freshDatabase, fund, makeNonProfit, makeUser, testConfig } from './harness.ts';
import { openPlatform } from '../src/platform.ts';

export const README_EIN = '530196605';

export function readmeExamples(): string[] {
  const readme = readFileSync(new URL('../packages/client/README.md', import.meta.url), 'utf8');
  const examples = [...readme.matchAll(/```ts example\n([\s\S]*?)```/g)].map((m) => m[1] ?? '');
  assert.equal(examples.length, 3);
  return examples;
}

/** A fresh SQLite database holding the README's donor (returned with a live key) and charity. */
export async function readmeWorld(): Promise<{ databaseUrl: string; key: string; cleanup: () => Promise<void> }> {
  const db = await freshDatabase('sqlite');
  const platform = await openPlatform(testConfig(db.databaseUrl), { log: pino({ level: 'silent' }) });
  await makeNonProfit(platform.deps, { ein: README_EIN, name: 'American National Red Cross', city: 'Washington', state: 'DC' });
  const user = await makeUser(platform.deps, { name: 'Readme Reader' });
  await fund(platform.deps, user, 100_000);
  await platform.close();
  return { databaseUrl: db.databaseUrl, key: user.key, cleanup: db.cleanup };
}

/** What the three examples print, in order, run once each against a fresh world. */
export function assertReadmeOutputs(outputs: string[]): void {
  assert.equal(outputs.length, 3);
  assert.equal(outputs[0], 'Readme Reader can give $1000');
  assert.match(outputs[1] ?? '', /^donation \d+: scheduled\nall my donations: \$25$/);
  assert.match(outputs[2] ?? '', /^404 non_profit_not_found [0-9A-Z]{26}$/);
}
