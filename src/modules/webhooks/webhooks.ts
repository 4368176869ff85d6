// Webhook rules (rules §12): what an endpoint URL may be, which addresses
// a delivery may reach, the secret's form, and the retry schedule.
import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/** The event types an endpoint may ask for; `webhook.test` is what "send a test event" sends. */
export const WEBHOOK_EVENT_TYPES = [
  'donation.created',
  'donation.updated',
  'gift.created',
  'gift.updated',
  'contribution.created',
  'contribution.updated',
  'webhook_endpoint.disabled',
  'payment.created',
  'payment.updated',
  'fundraiser.created',
  'fundraiser.updated',
  'match.created',
  'match.updated',
] as const;

/** What each event type means and what its `data` is: the event catalogue (`/docs/events`). */
export const EVENT_DOCS: Readonly<Record<(typeof WEBHOOK_EVENT_TYPES)[number], { when: string; data: string }>> = {
  'donation.created': {
    when: 'A donation was made (by API, the web app, a recurring donation, a claimed gift or a request from a family member).',
    data: 'The donation as `GET /v1/donations/:id` answers it, with its `status`.',
  },
  'donation.updated': { when: "A donation's status changed: approved, paid, cancelled, rejected, or a request approved, declined or lapsed.", data: 'The donation as it is now.' },
  'gift.created': { when: 'A gift was sent.', data: 'The gift as `GET /v1/gifts/:code` answers it.' },
  'gift.updated': { when: 'A gift was seen, accepted, claimed for a non-profit or declined.', data: 'The gift as it is now.' },
  'contribution.created': { when: 'A contribution was declared or recorded.', data: 'The contribution as `GET /v1/contributions/:id` answers it.' },
  'contribution.updated': { when: 'A contribution was received, cleared (success), failed or cancelled.', data: 'The contribution as it is now.' },
  'webhook_endpoint.disabled': { when: 'One of your endpoints failed every delivery for 5 days and was disabled.', data: 'The endpoint (`id`, `url`), without its secret.' },
  'payment.created': {
    when: 'A payment to a charity that includes your donation was put in a payment run.',
    data: 'The payment: `status`, `method` (ach or check) and `pay_date`.',
  },
  'payment.updated': { when: 'That payment was sent, cashed, returned or voided.', data: 'The payment as it is now.' },
  'fundraiser.created': { when: 'You opened a fundraiser.', data: 'Its `status` (upcoming or open).' },
  'fundraiser.updated': { when: 'You ended your fundraiser, or changed its metadata.', data: '`status: ended`, or `changed: metadata`.' },
  'match.created': { when: "You pledged to match a fundraiser's donations; its cap is held from your fund.", data: '`fundraiser_id`, `cap`.' },
  'match.updated': {
    when: 'Your match gave a donation for one it matched, or ended.',
    data: '`matched` (dollars) and `donation_id` (your donation), or `status: ended` with `given` and `released` (dollars).',
  },
};

export const URL_MAX = 2048;

/**
 * When attempt n+1 is due after attempt n failed: 8 attempts over about 3.4 days (rules §12:
 * at least 7 over about 3 days), each delay with up to 20% jitter so that a backlog that failed
 * together does not retry together.
 */
export const RETRY_DELAYS_MS = [60_000, 5 * 60_000, 30 * 60_000, 2 * 3_600_000, 8 * 3_600_000, 24 * 3_600_000, 48 * 3_600_000] as const;

export function retryDelayMs(failedAttempts: number, random: number): number | undefined {
  const base = RETRY_DELAYS_MS[failedAttempts - 1];
  if (base === undefined) return undefined;
  return Math.round(base * (0.9 + 0.2 * random));
}

/** An endpoint failing every attempt this long is disabled (rules §12). */
export const DISABLE_AFTER_MS = 5 * 86_400_000;

/** `whsec_` and the base64 of 32 random bytes (Standard Webhooks' form). */
export function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/**
 * Not a public internet address: anything but global unicast in the IANA special-purpose registries
 * as the maintained ipaddr.js knows them (loopback, private, link-local, carrier-grade NAT,
 * multicast, broadcast, documentation and benchmarking ranges, 6to4, Teredo, unique local...).
 * An IPv4 address carried in IPv6 (mapped ::ffff:a.b.c.d, NAT64 64:ff9b::/96) is judged as itself.
 */
export function isPrivateAddress(ip: string): boolean {
  const bare = ip.replace(/^\[|\]$/g, '');
  if (!ipaddr.isValid(bare)) return true;
  const address = ipaddr.process(bare);
  if (address.kind() === 'ipv6' && address.range() === 'rfc6052') {
    const parts = (address as ipaddr.IPv6).parts;
    if (parts[2] === 0 && parts[3] === 0 && parts[4] === 0 && parts[5] === 0) {
      const hi = parts[6] ?? 0;
      const lo = parts[7] ?? 0;
      return isPrivateAddress(`${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`);
    }
  }
  return address.range() !== 'unicast';
}

/**
 * The problem with an endpoint URL, or undefined: http or https only, no credentials, at most
 * 2,048 characters, an ASCII host name (no IDN: a look-alike name is a phishing tool), and, unless
 * the operator allows private destinations, no private address written in any notation (the URL
 * parser reads 2130706433, 0177.0.0.1 and [::ffff:127.0.0.1] as the addresses they are). Names
 * are checked again on the address they resolve to at every delivery.
 */
export function endpointUrlProblem(raw: string, allowPrivate: boolean): string | undefined {
  if (raw.length > URL_MAX) return `must be at most ${URL_MAX} characters`;
  if (/[^\x21-\x7e]/.test(raw)) return "must be plain ASCII with no spaces: an internationalised (IDN) host name is not accepted; use its owner's ASCII name";
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute URL, like https://example.org/webhooks';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must use https (or http)';
  if (url.username !== '' || url.password !== '') return 'must not contain a user name or password: authenticate deliveries with their signature';
  if (url.hash !== '') return 'must not have a #fragment';
  const host = url.hostname;
  if (host.split('.').some((label) => label.startsWith('xn--'))) return 'must not use an internationalised (IDN) host name';
  if (allowPrivate) return undefined;
  const bare = host.replace(/^\[|\]$/g, '');
  if (isIP(bare) !== 0 && isPrivateAddress(bare)) return `must not point at a private, loopback or link-local address (${bare})`;
  if (host === 'localhost' || host.endsWith('.localhost') || !host.includes('.')) return 'must name a host on the internet, not a local one';
  return undefined;
}

/** Whether an endpoint with these `event_types` (its stored JSON list; empty: every type) wants `type`. */
export function wantsType(eventTypes: string): (type: string) => boolean {
  const types = JSON.parse(eventTypes) as string[];
  return (type) => types.length === 0 || types.includes(type);
}

/** The Standard Webhooks message id of an event: the same on every attempt and replay. */
export const messageIdOf = (eventId: number) => `evt_${eventId}`;
