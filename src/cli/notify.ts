// `almoner webhooks ...` and `almoner mail list`: telling people, for operators.
import { parseArgs } from 'node:util';
import { notifyStatus, runNotify } from '../modules/notify/index.ts';
import { deliveriesSettled, replayEndpoint } from '../modules/webhooks/index.ts';
import { listMail } from '../modules/mail/index.ts';
import { id, UsageError, withPlatform } from './common.ts';
import { isCalendarDay } from '../shared/days.ts';

export async function notifyCommand(group: string, sub: string | undefined, args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    strict: true,
    options: { endpoint: { type: 'string' }, since: { type: 'string' }, once: { type: 'boolean', default: false }, limit: { type: 'string' } },
  });
  const out = (text: string) => process.stdout.write(`${text}\n`);
  switch (`${group} ${sub ?? ''}`.trim()) {
    case 'webhooks status':
      return withPlatform(async ({ deps }) => {
        const s = await notifyStatus(deps);
        out(`Events not yet relayed: ${s.unrelayed_events}`);
        out(`Webhook deliveries: ${s.webhooks.pending} pending (${s.webhooks.due} due now), ${s.webhooks.succeeded} delivered, ${s.webhooks.failed} failed for good`);
        out(`Mail: ${s.mail.pending} pending (${s.mail.due} due now), ${s.mail.sent} sent, ${s.mail.failed} failed for good`);
        for (const e of s.webhooks.endpoints)
          out(`  endpoint ${e.id} (user ${e.user_id}, ${e.book}) ${e.url}: ${e.disabled === 1 ? `disabled: ${e.disabled_reason ?? ''}` : `failing since ${e.failing_since}`}`);
        return 0;
      });
    case 'webhooks deliver':
      // A node that only delivers: relays events and sends webhooks and mail until stopped (or once, --once).
      return withPlatform(async ({ deps }) => {
        let stopping = false;
        const stop = () => {
          stopping = true;
        };
        process.once('SIGTERM', stop);
        process.once('SIGINT', stop);
        do {
          // Until stopped, slow attempts go on while the next rounds send others' deliveries (deliverDue).
          const done = await runNotify(deps, 20, { waitForDeliveries: values.once === true });
          if (done.relayed + done.delivered + done.mailed > 0) out(`relayed ${done.relayed} events, started ${done.delivered} deliveries, ${done.mailed} messages`);
          if (values.once) break;
          await new Promise((resolve) => setTimeout(resolve, Math.max(100, deps.config.notifyIntervalMs || 500)));
        } while (!stopping);
        await deliveriesSettled(deps);
        return 0;
      });
    case 'webhooks replay': {
      const endpointId = id(values.endpoint, '--endpoint');
      const since = values.since ?? '';
      if (!isCalendarDay(since.slice(0, 10)) || !/^.{10}(T[\d:.]+Z)?$/.test(since) || Number.isNaN(Date.parse(since)))
        throw new UsageError('--since must be a date or time, like 2026-11-20 or 2026-11-20T08:00:00Z');
      return withPlatform(async ({ deps }) => {
        const queued = await replayEndpoint(deps, endpointId, since.length === 10 ? `${since}T00:00:00.000Z` : since);
        out(`Queued ${queued} events since ${since} for endpoint ${endpointId}; they go out with their first webhook-id.`);
        return 0;
      });
    }
    case 'mail list': {
      const limit = values.limit === undefined ? 50 : id(values.limit, '--limit');
      return withPlatform(async ({ deps }) => {
        const mail = await listMail(deps, limit);
        for (const m of mail) {
          out(
            `${String(m.id).padStart(6)}  ${m.status.padEnd(8)} ${m.created_at}  ${m.kind.padEnd(22)} ${m.recipient}  "${m.subject}"${m.file === null ? '' : `  ${deps.config.mailDir}/${m.file}`}${m.last_error === null ? '' : `  (${m.last_error})`}`,
          );
          for (const link of m.links) out(`        ${link}`);
        }
        out(`${mail.length} messages${deps.config.smtpUrl === undefined ? `; without SMTP_URL they are written to ${deps.config.mailDir}` : ''}`);
        return 0;
      });
    }
    default:
      throw new UsageError(`unknown command: ${group} ${sub ?? ''}`);
  }
}
