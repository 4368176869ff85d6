// The delivery worker (rules §12): claims due deliveries under a lease
// (no two workers send one attempt at once; a worker that dies leaves its
// claims to be taken again: at least once), sends them with bounded
// concurrency (per node, and per endpoint), records each attempt, retries on
// the schedule with jitter, and disables an endpoint failing for 5 days.
import { pushTo } from '../../shared/groups.ts';
import type { Deps } from '../../deps.ts';
import { recordEvent } from '../events/index.ts';
import * as store from './webhooks.store.ts';
import { sendWebhook, signatures, type SendResult } from './send.ts';
import { DISABLE_AFTER_MS, retryDelayMs } from './webhooks.ts';

/** A claim lasts past the longest attempt, so that a live worker never loses its claim mid-send. */
const leaseMs = (deps: Deps) => deps.config.webhookTimeoutMs * 2 + 5_000;

/** The secrets that sign now: the current one, and a rotated-out one still within its 24 hours. */
function signingSecrets(endpoint: store.Endpoint, now: Date): string[] {
  const previous = endpoint.previous_secret !== null && endpoint.previous_secret_until !== null && endpoint.previous_secret_until > now.toISOString();
  return previous ? [endpoint.secret, endpoint.previous_secret as string] : [endpoint.secret];
}

interface Outcome {
  delivery: store.Delivery;
  endpoint: store.Endpoint | undefined;
  result: SendResult;
  /** The endpoint is deleted or disabled: no retry. */
  gone: boolean;
  at: Date;
}

/** Sends one delivery (no database work): its outcome, to be settled with others. */
async function send(deps: Deps, delivery: store.Delivery, endpoint: store.Endpoint | undefined): Promise<Outcome> {
  const now = deps.clock.now();
  const gone = endpoint === undefined || endpoint.deleted_at !== null || (endpoint.disabled === 1 && delivery.type !== 'webhook.test');
  let result: SendResult;
  if (gone) result = { ok: false, status: null, durationMs: 0, error: endpoint?.deleted_at === null ? 'the endpoint is disabled' : 'the endpoint was deleted' };
  else {
    const headers = {
      'webhook-id': delivery.message_id,
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'webhook-signature': signatures(signingSecrets(endpoint, now), delivery.message_id, now, delivery.payload),
    };
    result = await sendWebhook(endpoint.url, headers, delivery.payload, { timeoutMs: deps.config.webhookTimeoutMs, allowPrivate: deps.config.webhookAllowPrivate });
  }
  deps.metrics.webhookAttempt(result.ok, result.durationMs / 1000);
  return { delivery, endpoint, result, gone, at: deps.clock.now() };
}

/**
 * Records outcomes in one transaction: their attempts, each delivery delivered, due again (the
 * schedule, with jitter) or failed for good, and each endpoint's health: failing since its first
 * failure after a success, disabled (with an event) after 5 days of it.
 */
async function settle(deps: Deps, outcomes: readonly Outcome[]): Promise<void> {
  if (outcomes.length === 0) return;
  await deps.db.transaction().execute(async (trx) => {
    await store.insertAttempts(
      trx,
      outcomes
        .filter((o) => o.endpoint !== undefined)
        .map((o) => ({
          delivery_id: o.delivery.id,
          endpoint_id: o.delivery.endpoint_id,
          at: o.at.toISOString(),
          status_code: o.result.status,
          duration_ms: o.result.durationMs,
          error: o.result.error?.slice(0, 500) ?? null,
          succeeded: o.result.ok ? 1 : 0,
        })),
    );
    const health = new Map<number, Outcome>();
    const delivered = outcomes.filter((o) => o.result.ok);
    await store.settleDelivered(
      trx,
      delivered.map((o) => o.delivery.id),
      (delivered.at(-1)?.at ?? new Date()).toISOString(),
    );
    for (const o of outcomes) {
      const attempts = o.delivery.attempts + 1;
      const delay = o.result.ok || o.gone ? undefined : retryDelayMs(attempts, Math.random());
      if (o.result.ok) {
        // settled above, all at once
      } else if (delay === undefined) await store.settleDelivery(trx, o.delivery.id, { status: 'failed', attempts });
      else await store.settleDelivery(trx, o.delivery.id, { status: 'pending', attempts, next_at: new Date(o.at.getTime() + delay).toISOString() });
      if (!o.gone && o.delivery.type !== 'webhook.test') health.set(o.delivery.endpoint_id, o); // the latest outcome of each endpoint
    }
    for (const [endpointId, o] of health) {
      const fresh = await store.endpointById(trx, endpointId);
      if (fresh === undefined) continue;
      if (o.result.ok) {
        if (fresh.failing_since !== null) await store.updateEndpoint(trx, endpointId, { failing_since: null });
      } else if (fresh.failing_since === null) {
        await store.updateEndpoint(trx, endpointId, { failing_since: o.at.toISOString() });
      } else if (fresh.disabled === 0 && o.at.getTime() - Date.parse(fresh.failing_since) >= DISABLE_AFTER_MS) {
        const reason = `every delivery failed for 5 days (since ${fresh.failing_since}); the last: ${o.result.error ?? 'failed'}`;
        await store.updateEndpoint(trx, endpointId, { disabled: 1, disabled_reason: reason.slice(0, 500), updated_at: o.at.toISOString() });
        await recordEvent(trx, {
          user_id: fresh.user_id,
          type: 'webhook_endpoint.disabled',
          object_type: 'webhook_endpoint',
          object_id: endpointId,
          data: { url: fresh.url, reason },
          at: o.at.toISOString(),
        });
      }
    }
  });
}

/** Outcomes are written a few dozen at a time: fewer commits, and few re-sent after a crash. */
const SETTLE_EVERY = 50;

/**
 * What this node is sending, across rounds: slots in use in all (at most WEBHOOK_CONCURRENCY) and
 * per owner of endpoints (at most WEBHOOK_OWNER_CONCURRENCY), and the rounds not yet settled.
 */
export class Sending {
  total = 0;
  readonly byOwner = new Map<number, number>();
  /** Endpoints a round not yet settled holds: no other round of this node claims theirs (their order, their concurrency). */
  readonly endpoints = new Set<number>();
  readonly rounds = new Set<Promise<void>>();
}

declare module '../../deps.ts' {
  interface Runtime {
    /** What this node is sending (created empty by platform.ts). */
    webhooks: Sending;
  }
}

/** One endpoint's share of a round: its deliveries in order, `lane` of every `width`. */
interface Lane {
  owner: number;
  run: () => Promise<void>;
}

/**
 * Sends what is due, up to `limit` deliveries in one claim; returns how many it started (with
 * `wait`, the default, once they are all settled). Many workers may run at once (nodes, `almoner
 * webhooks deliver`): each claims its own. Fair between owners of endpoints: a claim takes at most
 * WEBHOOK_OWNER_CONCURRENCY deliveries of one owner, their lanes start in turns of owners, and no
 * owner holds more than that many of the node's slots at once, so one user's slow endpoints delay
 * only their own deliveries. Without `wait` (a server's loop) a round's slow attempts go on while
 * the next rounds claim and send others' deliveries in the slots left. No attempt starts unless it
 * can end within its claim (what is left is released, to be claimed again).
 */
export async function deliverDue(deps: Deps, limit = 500, options: { wait?: boolean } = {}): Promise<number> {
  const sending = deps.runtime.webhooks;
  const free = deps.config.webhookConcurrency - sending.total;
  if (free <= 0) return 0;
  const now = deps.clock.now();
  const leaseEnd = now.getTime() + leaseMs(deps);
  const ownersAtCap = [...sending.byOwner].filter(([, n]) => n >= deps.config.webhookOwnerConcurrency).map(([owner]) => owner);
  const claimed = await store.claimDueDeliveries(
    deps.db,
    now.toISOString(),
    new Date(leaseEnd).toISOString(),
    limit,
    Math.max(deps.config.webhookOwnerConcurrency, Math.ceil(limit / 4)),
    {
      endpoints: [...sending.endpoints],
      owners: ownersAtCap,
    },
  );
  if (claimed.length === 0) return 0;
  const byEndpoint = Map.groupBy(claimed, (d) => d.endpoint_id);
  let pending: Outcome[] = [];
  let writing = Promise.resolve();
  const flush = () => {
    const batch = pending;
    pending = [];
    writing = writing.then(() => settle(deps, batch));
    return writing;
  };
  const attempted = new Set<number>();
  // Each endpoint's deliveries in order, a few at a time, as lanes; lanes in turns of owners.
  const byOwner = new Map<number, Lane[]>();
  for (const [endpointId, deliveries] of byEndpoint) {
    const endpoint = await store.endpointById(deps.db, endpointId);
    const owner = deliveries[0]?.owner_id ?? 0;
    const width = Math.min(deps.config.webhookEndpointConcurrency, deliveries.length);
    for (let lane = 0; lane < width; lane++) {
      const run = async () => {
        for (let i = lane; i < deliveries.length; i += width) {
          if (deps.clock.now().getTime() + deps.config.webhookTimeoutMs + 1_000 > leaseEnd) return;
          const delivery = deliveries[i] as store.Delivery;
          attempted.add(delivery.id);
          // Sent first, then pushed: `pending.push(await ...)` would push into the array as it was
          // before the await, which a flush may have handed to settle meanwhile.
          const outcome = await send(deps, delivery, endpoint);
          pending.push(outcome);
          if (pending.length >= SETTLE_EVERY) await flush();
        }
      };
      pushTo(byOwner, owner, { owner, run });
    }
  }
  const queue = inTurns([...byOwner.values()]);
  for (const endpointId of byEndpoint.keys()) sending.endpoints.add(endpointId);
  const round = runLanes(deps, sending, queue, leaseEnd)
    .then(async () => {
      await flush();
      await store.releaseClaims(
        deps.db,
        claimed.filter((d) => !attempted.has(d.id)).map((d) => d.id),
      );
    })
    .finally(() => {
      for (const endpointId of byEndpoint.keys()) sending.endpoints.delete(endpointId);
    });
  const tracked = round.finally(() => sending.rounds.delete(tracked));
  sending.rounds.add(tracked);
  if (options.wait === false) {
    tracked.catch((error: unknown) => deps.log.error({ err: error }, 'webhook deliveries failed'));
    return claimed.length;
  }
  await tracked;
  return attempted.size;
}

/** Waits until every round this node started has settled (a worker's end, tests). */
export async function deliveriesSettled(deps: Deps): Promise<void> {
  const sending = deps.runtime.webhooks;
  while (sending.rounds.size > 0) await Promise.allSettled([...sending.rounds]);
}

/** Lanes in turns: each owner's first, then each owner's second... */
function inTurns(perOwner: readonly Lane[][]): Lane[] {
  const out: Lane[] = [];
  for (let turn = 0; out.length < perOwner.reduce((n, lanes) => n + lanes.length, 0); turn++) {
    for (const lanes of perOwner) if (turn < lanes.length) out.push(lanes[turn] as Lane);
  }
  return out;
}

/**
 * Runs `queue`'s lanes in order, each when the node has a slot and its owner has one; resolves
 * once every lane has run or can no longer start before `leaseEnd`.
 */
function runLanes(deps: Deps, sending: Sending, queue: Lane[], leaseEnd: number): Promise<void> {
  const ownerMax = deps.config.webhookOwnerConcurrency;
  return new Promise<void>((resolve, reject) => {
    let running = 0;
    const start = () => {
      const late = deps.clock.now().getTime() + deps.config.webhookTimeoutMs + 1_000 > leaseEnd;
      for (let i = 0; i < queue.length && !late;) {
        const lane = queue[i] as Lane;
        if (sending.total >= deps.config.webhookConcurrency) break;
        if ((sending.byOwner.get(lane.owner) ?? 0) >= ownerMax) {
          i++;
          continue;
        }
        queue.splice(i, 1);
        running++;
        sending.total++;
        sending.byOwner.set(lane.owner, (sending.byOwner.get(lane.owner) ?? 0) + 1);
        lane
          .run()
          .then(() => {
            running--;
            sending.total--;
            sending.byOwner.set(lane.owner, (sending.byOwner.get(lane.owner) ?? 1) - 1);
            if (sending.byOwner.get(lane.owner) === 0) sending.byOwner.delete(lane.owner);
            start();
          })
          .catch(reject);
      }
      if (late) queue.length = 0;
      if (running === 0 && (queue.length === 0 || late)) resolve();
      else if (running === 0) setTimeout(start, 50); // every slot of theirs is another round's: look again soon
    };
    start();
  });
}

/** Counts what waits, for /metrics and `almoner webhooks status`. */
export async function webhookBacklog(deps: Deps) {
  const counts = await store.deliveryCounts(deps.db, deps.clock.now().toISOString());
  deps.metrics.backlog('webhooks', counts);
  return { ...counts, endpoints: await store.endpointHealth(deps.db) };
}
