// `alms listen --forward-to URL`: the caller's events, as they happen, delivered to a local URL as
// the platform's webhooks deliver them (Standard Webhooks: the same body, read from
// `GET /v1/events/:id/delivery`, the same `webhook-id`,
// `webhook-timestamp` and an HMAC-SHA256 `webhook-signature` with the given secret), so that an
// integrator tests their webhook handler on a laptop without the operator allowing private
// addresses. It reads `GET /v1/events` every --interval seconds, from the newest event at start.
import { createHmac, randomBytes } from 'node:crypto';
import type { AlmonerClient } from './index.ts';

type Event = { id: number; type: string; object_type: string; object_id: number; data: Record<string, unknown>; created_at: string };

export interface Listening {
  forwardTo: URL;
  /** whsec_ and base64: the endpoint's secret, or one made for this session. */
  secret: string;
  /** The secret was given (--secret): it is never printed, only one made for the session is (its user needs it). */
  given: boolean;
  types: readonly string[];
  intervalMs: number;
  out: (line: string) => void;
  /** Stops the loop (Ctrl-C; a test). */
  signal: AbortSignal;
}

/** A new secret in the endpoints' form, for a session without one. */
export const sessionSecret = (): string => `whsec_${randomBytes(24).toString('base64')}`;

/** The Standard Webhooks signature of a delivery: `v1,` and base64(HMAC-SHA256(secret, id.timestamp.body)). */
export function sign(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/** The events newer than `after`, oldest first (page after page until it reaches `after`). */
async function newer(client: AlmonerClient, after: number): Promise<Event[]> {
  const found: Event[] = [];
  for (let page = 1; ; page++) {
    const answer = await client.events.list({ page, per_page: 100 });
    const items = answer.items as Event[];
    found.push(...items.filter((e) => e.id > after));
    if (items.length === 0 || items.some((e) => e.id <= after) || page >= answer.meta.last) break;
  }
  return found.sort((a, b) => a.id - b.id);
}

/** Waits `ms`, or until stopped; its listener on the signal goes with it (one wait per poll: none may pile up). */
const wait = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });

/** Forwards events until stopped; returns how many it forwarded. */
export async function listen(client: AlmonerClient, l: Listening): Promise<number> {
  let last = ((await client.events.list({ page: 1, per_page: 1 })).items[0] as Event | undefined)?.id ?? 0;
  const signedWith = l.given ? 'the secret you gave' : `${l.secret} (made for this session: verify with it)`;
  l.out(`Forwarding ${l.types.length === 0 ? 'every event' : l.types.join(', ')} to ${l.forwardTo.href}, signed with ${signedWith}. Ctrl-C stops.`);
  let forwarded = 0;
  while (!l.signal.aborted) {
    let events: Event[] = [];
    try {
      events = await newer(client, last);
    } catch (error) {
      l.out(`could not read events: ${(error as Error).message}; trying again`);
    }
    for (const e of events) {
      last = Math.max(last, e.id);
      if (l.types.length > 0 && !l.types.includes(e.type)) continue;
      // What the platform's webhook delivery of this event carries, rendered by the platform itself.
      let delivery: { webhook_id: string; body: string };
      try {
        delivery = await client.events.delivery(e.id);
      } catch (error) {
        l.out(`could not read event ${e.id}'s delivery: ${(error as Error).message}; skipped`);
        continue;
      }
      const { webhook_id: id, body } = delivery;
      const timestamp = Math.floor(Date.now() / 1000);
      let outcome: string;
      try {
        const response = await fetch(l.forwardTo, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'user-agent': 'Almoner-Webhooks/1',
            'webhook-id': id,
            'webhook-timestamp': String(timestamp),
            'webhook-signature': sign(l.secret, id, timestamp, body),
          },
          body,
          redirect: 'manual',
          signal: AbortSignal.timeout(15_000),
        });
        await response.body?.cancel();
        outcome = String(response.status);
      } catch (error) {
        outcome = `failed: ${(error as Error).message}`;
      }
      forwarded += 1;
      l.out(`${e.created_at.slice(0, 19).replace('T', ' ')}  ${e.type.padEnd(24)} ${id} -> ${outcome}`);
    }
    await wait(l.intervalMs, l.signal);
  }
  return forwarded;
}
