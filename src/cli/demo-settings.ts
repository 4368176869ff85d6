// The demo's settings for paying charities, shared by `almoner demo` and every command run on the
// demo's database (so that a payment run opened from the CLI reads what the demo's charities sealed).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import type { Config } from '../config.ts';
import { sqlitePathOf } from '../db/database.ts';
import { originatorProblems } from '../modules/payments/index.ts';

/**
 * The demo's bank settings, so that a charity can give bank details and a run makes its NACHA
 * file: a PAYEE_DATA_KEY generated once beside the demo's database (kept, so details sealed
 * yesterday open today) and sample ACH_* values. Only where none is set, and never in production.
 * The demo makes the key (`create`); a command on the demo's database uses it when it is there.
 */
export function demoPayments(config: Config, { create }: { create: boolean }): Config['payments'] | undefined {
  const path = sqlitePathOf(config.databaseUrl);
  if (config.production || path === undefined || path === ':memory:' || config.payments.payeeKey !== undefined) return undefined;
  const keyFile = join(dirname(path), 'demo-payee.key');
  if (!existsSync(keyFile)) {
    if (!create) return undefined;
    mkdirSync(dirname(keyFile), { recursive: true });
    writeFileSync(keyFile, randomBytes(32).toString('base64'), { mode: 0o600 });
  }
  const unset = originatorProblems(config.payments.ach).length > 0;
  return {
    ...config.payments,
    payeeKey: Buffer.from(readFileSync(keyFile, 'utf8').trim(), 'base64'),
    ...(unset ? { ach: DEMO_ACH } : {}),
    ...(config.payments.checkAccount === '' ? { checkAccount: '000123456789' } : {}),
  };
}

/** Sample originator details (a bank's published test routing numbers): files made with them go nowhere. */
const DEMO_ACH = {
  destinationRouting: '091000019',
  destinationName: 'Demo Bank',
  originId: '1234567890',
  originName: 'Almoner Demo',
  companyId: '1234567890',
  companyName: 'Almoner Demo',
  odfiRouting: '011000015',
};
