// The delivery worker (DECISIONS 12): claims due deliveries under a lease
// (no two workers send one attempt at once; a worker that dies leaves its
// claims to be taken again: at least once), sends them with bounded
// concurrency (per node, and per endpoint), records each attempt, retries on
// the schedule with jitter, and disables an endpoint failing for 5 days.
import type { Deps } from '../../deps.ts';
import { recordEvent } from '../events/index.ts';
import * as store from './webhooks.store.ts';
import { sendWebhook, signatures, type SendResult } from './send.ts';
import { DISABLE_AFTER_MS, retryDelayMs } from './webhooks.ts';

/** A claim lasts past the longest attempt, so that a live worker never loses its claim mid-send. */
const leaseMs = (deps: Deps) => deps.config.webhookTimeoutMs * 2 + 5_000;

/** Runs `work` over `items`, at most `limit` at once. */
async function pool<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const runners = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const item = items[next++] as T;
      await work(item);
    }
  });
  await Promise.all(runners);
}

/** The secrets that sign now: the current one, and a rotated-out one still within its 24 hours. */
function signingSecrets(endpoint: store.Endpoint, now: Date): string[] {
  const previous = endpoint.previous_secret !== null && endpoint.previous_secret_until !== null && endpoint.previous_secret_until > now.toISOString();
  return previous ? [endpoint.secret, endpoint.previous_secret as string] : [endpoint.secret];
}

async function attempt(deps: Deps, delivery: store.Delivery, endpoint: store.Endpoint | undefined): Promise<void> {
  const now = deps.clock.now();
  let result: SendResult;
  if (endpoint === undefined || endpoint.deleted_at !== null) result = { ok: false, status: null, durationMs: 0, error: 'the endpoint was deleted' };
  else if (endpoint.disabled === 1 && delivery.type !== 'webhook.test') result = { ok: false, status: null, durationMs: 0, error: 'the endpoint is disabled' };
  else {
    const headers = {
      'webhook-id': delivery.message_id,
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'webhook-signature': signatures(signingSecrets(endpoint, now), delivery.message_id, now, delivery.payload),
    };
    result = await sendWebhook(endpoint.url, headers, delivery.payload, { timeoutMs: deps.config.webhookTimeoutMs, allowPrivate: deps.config.webhookAllowPrivate });
  }
  deps.metrics.webhookAttempt(result.ok, result.durationMs / 1000);
  const at = deps.clock.now();
  const attempts = delivery.attempts + 1;
  const gone = endpoint === undefined || endpoint.deleted_at !== null || (endpoint.disabled === 1 && delivery.type !== 'webhook.test');
  const delay = result.ok || gone ? undefined : retryDelayMs(attempts, Math.random());
  await deps.db.transaction().execute(async (trx) => {
    if (endpoint !== undefined) {
      await store.insertAttempt(trx, {
        delivery_id: delivery.id,
        endpoint_id: endpoint.id,
        at: at.toISOString(),
        status_code: result.status,
        duration_ms: result.durationMs,
        error: result.error?.slice(0, 500) ?? null,
        succeeded: result.ok ? 1 : 0,
      });
    }
    if (result.ok) await store.settleDelivery(trx, delivery.id, { status: 'succeeded', attempts, delivered_at: at.toISOString() });
    else if (delay === undefined) await store.settleDelivery(trx, delivery.id, { status: 'failed', attempts });
    else await store.settleDelivery(trx, delivery.id, { status: 'pending', attempts, next_at: new Date(at.getTime() + delay).toISOString() });
    if (endpoint === undefined || gone || delivery.type === 'webhook.test') return;
    // The endpoint's health: failing since its first failure after a success; disabled after 5 days of it.
    const fresh = await store.endpointById(trx, endpoint.id);
    if (fresh === undefined) return;
    if (result.ok) {
      if (fresh.failing_since !== null) await store.updateEndpoint(trx, endpoint.id, { failing_since: null });
    } else if (fresh.failing_since === null) {
      await store.updateEndpoint(trx, endpoint.id, { failing_since: at.toISOString() });
    } else if (fresh.disabled === 0 && at.getTime() - Date.parse(fresh.failing_since) >= DISABLE_AFTER_MS) {
      const reason = `every delivery failed for 5 days (since ${fresh.failing_since}); the last: ${result.error ?? 'failed'}`;
      await store.updateEndpoint(trx, endpoint.id, { disabled: 1, disabled_reason: reason.slice(0, 500), updated_at: at.toISOString() });
      await recordEvent(trx, {
        user_id: endpoint.user_id,
        type: 'webhook_endpoint.disabled',
        object_type: 'webhook_endpoint',
        object_id: endpoint.id,
        data: { url: endpoint.url, reason },
        at: at.toISOString(),
      });
    }
  });
}

/**
 * Sends what is due, up to `limit` deliveries in one claim; returns how many were attempted. Many
 * workers may run at once (nodes, `almoner webhooks deliver`): each claims its own.
 */
export async function deliverDue(deps: Deps, limit = 500): Promise<number> {
  const now = deps.clock.now();
  const claimed = await store.claimDueDeliveries(deps.db, deps.engine, now.toISOString(), new Date(now.getTime() + leaseMs(deps)).toISOString(), limit);
  if (claimed.length === 0) return 0;
  const byEndpoint = new Map<number, store.Delivery[]>();
  for (const d of claimed) byEndpoint.set(d.endpoint_id, [...(byEndpoint.get(d.endpoint_id) ?? []), d]);
  // Each endpoint's deliveries in order, a few at a time; endpoints side by side, up to the node's limit.
  const lanes: Array<() => Promise<void>> = [];
  for (const [endpointId, deliveries] of byEndpoint) {
    const endpoint = await store.endpointById(deps.db, endpointId);
    for (let lane = 0; lane < Math.min(deps.config.webhookEndpointConcurrency, deliveries.length); lane++) {
      lanes.push(async () => {
        for (let i = lane; i < deliveries.length; i += deps.config.webhookEndpointConcurrency) await attempt(deps, deliveries[i] as store.Delivery, endpoint);
      });
    }
  }
  await pool(lanes, deps.config.webhookConcurrency, (run) => run());
  return claimed.length;
}

/** Counts what waits, for /metrics and `almoner webhooks status`. */
export async function webhookBacklog(deps: Deps) {
  const counts = await store.deliveryCounts(deps.db, deps.clock.now().toISOString());
  deps.metrics.backlog('webhooks', 'pending', counts.pending);
  deps.metrics.backlog('webhooks', 'due', counts.due);
  deps.metrics.backlog('webhooks', 'failed', counts.failed);
  return { ...counts, endpoints: await store.endpointHealth(deps.db) };
}
