// Sending mail (rules §15): messages are queued in the outbox inside the
// transaction that causes them (or by the relay, from events), then sent
// after commit by a worker, at least once, retried while SMTP is down, never
// holding a request. Through nodemailer: SMTP_URL, or without it each
// message written as an .eml file to MAIL_DIR (named by its outbox id, so a
// retry replaces the same file rather than making a second).
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { writeWhole } from '../../shared/files.ts';
import { join } from 'node:path';
import nodemailer, { type Transporter } from 'nodemailer';
import type { Deps } from '../../deps.ts';
import type { Trx } from '../../db/database.ts';
import * as store from './mail.store.ts';
import type { Message } from './messages.ts';
import type { Config } from '../../config.ts';

/** After try n failed, when the next is due; after the last, the message has failed for good (about 2 days). */
const RETRY_MS = [30_000, 2 * 60_000, 10 * 60_000, 30 * 60_000, 2 * 3_600_000, 6 * 3_600_000, 12 * 3_600_000, 24 * 3_600_000] as const;

export interface Outgoing extends Message {
  kind: string;
  recipient: string;
  event_id: number | null;
}

/** Queues messages in the caller's transaction: they go out only if it commits. */
export async function queueMail(trx: Trx, messages: readonly Outgoing[], at: string): Promise<void> {
  await store.insertMail(
    trx,
    messages.map((m) => ({ ...m, status: 'pending', next_at: at, created_at: at, claimed_until: null, last_error: null, sent_at: null })),
  );
}

declare module '../../deps.ts' {
  interface Runtime {
    /** SMTP_URL's transport (its connections), or one that renders each message for a `.eml` file. */
    mail: Transporter;
  }
}

/** For platform.ts to build once per node. */
export function createMailTransport(config: Readonly<Config>): Transporter {
  return config.smtpUrl === undefined ? nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' }) : nodemailer.createTransport(config.smtpUrl);
}

async function deliver(deps: Deps, mail: store.Mail): Promise<void> {
  const info = (await deps.runtime.mail.sendMail({
    from: deps.config.mailFrom,
    to: mail.recipient,
    subject: mail.subject,
    text: mail.text,
    html: mail.html,
    messageId: `<outbox-${mail.id}@almoner>`,
    headers: { 'X-Almoner-Kind': mail.kind },
  })) as { message?: Buffer };
  if (deps.config.smtpUrl === undefined) {
    // Whole or not at all (shared/files.ts): a pickup never reads half a message, nor one a retry empties.
    mkdirSync(deps.config.mailDir, { recursive: true });
    await writeWhole(join(deps.config.mailDir, `${emlPrefix(mail.id)}${mail.kind}.eml`), info.message ?? Buffer.alloc(0));
  }
}

/** The .eml file name of an outbox message (by its id, so a message's file is found again). */
function emlPrefix(id: number): string {
  return `${String(id).padStart(8, '0')}-`;
}

/** Removes the .eml files of the outbox messages `ids` (a forgotten person's); a missing file or folder is no error. */
export function removeMailFiles(deps: Deps, ids: readonly number[]): void {
  if (ids.length === 0) return;
  let files: string[];
  try {
    files = readdirSync(deps.config.mailDir);
  } catch {
    return;
  }
  const wanted = new Set(ids);
  for (const file of files) {
    // Its file, or one a process left half written when it stopped (writeWhole).
    const id = /^\.?(\d+)-[a-z_]+\.eml(?:\.\d+\.partial)?$/.exec(file)?.[1];
    if (id !== undefined && wanted.has(Number(id))) rmSync(join(deps.config.mailDir, file), { force: true });
  }
}

/** Sends what is due, up to `limit`; returns how many were tried. */
export async function sendDueMail(deps: Deps, limit = 100): Promise<number> {
  const now = deps.clock.now();
  const claimed = await store.claimDueMail(deps.db, now.toISOString(), new Date(now.getTime() + 120_000).toISOString(), limit);
  for (const mail of claimed) {
    const attempts = mail.attempts + 1;
    try {
      await deliver(deps, mail);
      deps.metrics.mailAttempt(true);
      await store.settleMail(deps.db, mail.id, { status: 'sent', attempts, sent_at: deps.clock.now().toISOString(), last_error: null });
    } catch (error) {
      deps.metrics.mailAttempt(false);
      const delay = RETRY_MS[attempts - 1];
      const message = (error as Error).message.slice(0, 500);
      deps.log.warn({ mail: mail.id, kind: mail.kind, attempts, err: message }, delay === undefined ? 'mail failed for good' : 'mail not sent; will retry');
      await store.settleMail(deps.db, mail.id, {
        status: delay === undefined ? 'failed' : 'pending',
        attempts,
        last_error: message,
        ...(delay === undefined ? {} : { next_at: new Date(deps.clock.now().getTime() + delay).toISOString() }),
      });
    }
  }
  return claimed.length;
}

export async function mailBacklog(deps: Deps) {
  const counts = await store.mailCounts(deps.db, deps.clock.now().toISOString());
  deps.metrics.backlog('mail', counts);
  return counts;
}

/** The newest messages with their state, and the .eml files written (operators: `almoner mail list`). */
export async function listMail(deps: Deps, limit = 50) {
  const rows = await store.recentMail(deps.db, limit);
  let files: string[] = [];
  try {
    files = readdirSync(deps.config.mailDir);
  } catch {
    files = [];
  }
  return rows.map((m) => ({
    id: m.id,
    kind: m.kind,
    recipient: m.recipient,
    subject: m.subject,
    status: m.status,
    attempts: m.attempts,
    created_at: m.created_at,
    sent_at: m.sent_at,
    last_error: m.last_error,
    file: files.find((f) => f.startsWith(`${String(m.id).padStart(8, '0')}-`)) ?? null,
    // Its links whole, as the message's text has them (an .eml file's quoted-printable lines break long ones).
    links: [...new Set(m.text.match(/https?:\/\/[^\s<>"]+/g) ?? [])],
  }));
}

/** Records the address this server is reached at (it has just started listening), for mail the CLI sends. */
export async function rememberPublicUrl(deps: Deps, url: string): Promise<void> {
  await store.recordPublicUrl(deps.db, url.replace(/\/+$/, ''), deps.clock.now().toISOString());
}

/** The address a server recorded, for a CLI process that was given no PUBLIC_URL of its own. */
export async function rememberedPublicUrl(deps: Deps): Promise<string | undefined> {
  return await store.recordedPublicUrl(deps.db);
}
