// One round of telling people: relay new events into deliveries and mail,
// then send what is due. A server runs it every NOTIFY_INTERVAL_MS; `almoner
// webhooks deliver` runs it alone, for a node that only delivers.
import type { Deps } from '../../deps.ts';
import { unrelayedCount } from '../events/index.ts';
import { deliverDue, webhookBacklog } from '../webhooks/index.ts';
import { mailBacklog, sendDueMail } from '../mail/index.ts';
import { relayEvents } from './notify.relay.ts';

/**
 * Relays and sends until nothing is due (or `maxRounds` rounds); returns what it did. With
 * `waitForDeliveries: false` (a worker's loop) webhook attempts still in flight go on after it
 * returns, in slots the next rounds do not take (deliverDue).
 */
export async function runNotify(deps: Deps, maxRounds = 20, options: { waitForDeliveries?: boolean } = {}): Promise<{ relayed: number; delivered: number; mailed: number }> {
  const done = { relayed: 0, delivered: 0, mailed: 0 };
  for (let round = 0; round < maxRounds; round++) {
    const relayed = await relayEvents(deps);
    const [delivered, mailed] = await Promise.all([deliverDue(deps, 500, { wait: options.waitForDeliveries !== false }), sendDueMail(deps)]);
    done.relayed += relayed;
    done.delivered += delivered;
    done.mailed += mailed;
    if (relayed === 0 && delivered === 0 && mailed === 0) break;
  }
  return done;
}

/** What waits, for operators (`almoner webhooks status`) and /metrics. */
export async function notifyStatus(deps: Deps) {
  const [webhooks, mail, unrelayed] = await Promise.all([webhookBacklog(deps), mailBacklog(deps), unrelayedCount(deps.db)]);
  return { unrelayed_events: unrelayed, webhooks, mail };
}
