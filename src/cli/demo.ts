// `almoner demo`: the embedded database with demo data, served, with logs for a person.
import { loadConfig } from '../config.ts';
import { dirname, join } from 'node:path';
import { demoPayments } from './demo-settings.ts';
import { sqlitePathOf } from '../db/database.ts';
import { openPlatform } from '../platform.ts';
import { buildApp } from '../app.ts';
import { startJobs } from '../jobs.ts';
import { seedDemo, DEMO_PASSWORD } from '../demo/seed.ts';
import { createKey } from '../modules/keys/index.ts';
import { userIdBySlug } from '../modules/users/index.ts';
import { directorySize } from '../modules/nonprofits/index.ts';
import { makeLogger } from '../log.ts';
import { keepRequestObjectsYoung } from '../heap.ts';
import pretty from 'pino-pretty';

/** A demo log line: a request as `GET /v1/donations` then `-> 200 in 11 ms`, anything else as its message and fields. */
function demoLine(entry: Record<string, unknown>, messageKey: string): string {
  const req = entry.req as { method?: string; url?: string } | undefined;
  const res = entry.res as { statusCode?: number } | undefined;
  if (req !== undefined) return `${String(entry.reqId ?? '')} ${req.method ?? ''} ${req.url ?? ''}`;
  if (res !== undefined) return `${String(entry.reqId ?? '')} -> ${res.statusCode ?? ''} in ${Math.round(Number(entry.responseTime ?? 0))} ms`;
  const { [messageKey]: message, level: _level, time: _time, pid: _pid, hostname: _host, ...rest } = entry;
  return Object.keys(rest).length === 0 ? String(message ?? '') : `${String(message ?? '')} ${JSON.stringify(rest)}`;
}

/**
 * The organisation the demo's charity person claims: Ada's approved donation to it waits for a run.
 * Its website is at a domain of the `.test` names reserved for testing: the demo writes mail to
 * files, so the address there gets its confirmation link.
 */
export const DEMO_CHARITY = { ein: '911148123', name: 'Mercy Corps', domain: 'mercycorps.demo.test' } as const;

export async function demo(): Promise<void> {
  keepRequestObjectsYoung(); // a server like `almoner serve`, to build against (src/heap.ts)
  const loaded = loadConfig();
  const payments = demoPayments(loaded, { create: true });
  const config = payments === undefined ? loaded : Object.freeze({ ...loaded, payments });
  // The demo is watched by a person: one readable line per log entry (production logs stay JSON).
  const log = makeLogger(
    { level: config.logLevel },
    pretty({ colorize: process.stdout.isTTY, translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname', hideObject: true, messageFormat: demoLine }),
  );
  const platform = await openPlatform(config, { log });
  const result = await seedDemo(platform.deps);
  let key = result.key;
  if (!result.created) {
    const ada = await userIdBySlug(platform.deps, 'ada');
    if (ada !== undefined) key = (await createKey(platform.deps, ada, 'demo', 'live')).key;
  }
  const app = await buildApp(platform.deps);
  await app.listen({ host: config.host, port: config.port });
  const stopJobs = startJobs(platform);
  // One address everywhere: the API, the web app and Login with Almoner's issuer (PUBLIC_URL).
  const base = config.publicUrl;
  process.stdout.write(
    [
      '',
      `Almoner is running at ${base} on ${config.databaseUrl}${result.created ? ' (demo data loaded)' : ''}`,
      key !== undefined ? `Demo API key for Ada Lovelace (shown once): ${key}` : 'No demo user "ada" here: create one with `npx almoner users create --name NAME`.',
      key !== undefined ? `Try:  curl -s -H 'X-Api-Key: ${key}' ${base}/v1/donations` : '',
      result.operator_token !== undefined
        ? `Operator token (shown once): ${result.operator_token}   e.g. curl -s -H 'Authorization: Bearer ${result.operator_token}' ${base}/admin/v1/users`
        : '',
      `Web app: ${base}  (sign in as ada@example.org, grace@example.org or katherine@example.org, password ${DEMO_PASSWORD})`,
      `API reference: ${base}/docs    OpenAPI: ${base}/openapi.json`,
      `Directory: ${(await directorySize(platform.deps)).toLocaleString('en-US')} organisations, a sample of the IRS files (the Red Cross, Save the Children, Habitat for Humanity...).`,
      `  The national directory (about 1.9 million): npx almoner nonprofits download && npx almoner nonprofits import data/irs/bmf`,
      config.sponsorUnset.length === 0
        ? ''
        : `Sponsor details are placeholders (${config.sponsorUnset.join(', ')}): donors' instructions and receipts show them. Fine for a demo; a production node refuses to start without them.`,
      payments === undefined
        ? ''
        : `Paying charities: a demo PAYEE_DATA_KEY (${join(dirname(sqlitePathOf(config.databaseUrl) ?? ''), 'demo-payee.key')}) and sample ACH_* settings let charities give bank details and runs make NACHA files that go nowhere; set your own before real money.`,
      `A charity to claim: ${DEMO_CHARITY.name} (EIN ${DEMO_CHARITY.ein}; Ada's approved $100 waits for a payment run). Sign up as finance@${DEMO_CHARITY.domain},`,
      `  claim it at ${base}/charities/${DEMO_CHARITY.ein}/claim naming its website ${DEMO_CHARITY.domain}. Mail is written to ${config.mailDir}: npx almoner mail list shows each message's links.`,
      'Paying it: README.md, "Walk the money out" (approve, open a run, submit, print the checks and remittances).',
      'Stop with Ctrl-C.',
      '',
    ].join('\n'),
  );
  const stop = async () => {
    stopJobs();
    await app.close();
    await platform.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
}

/** A progress line: a bar on a terminal, a line every few seconds otherwise. */
