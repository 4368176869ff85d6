// Fixed one-minute windows per key (and per IP for requests without a valid
// key), with the RateLimit-* headers of DECISIONS 10. In-process: each node
// counts its own requests.
import type { FastifyReply } from 'fastify';
import { AppError } from '../shared/errors.ts';

const WINDOW_MS = 60_000;
const MAX_TRACKED = 100_000;

interface Window {
  start_ms: number;
  count: number;
}

export class RateLimiter {
  readonly #windows = new Map<string, Window>();
  readonly #now: () => number;
  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** Counts one request for `bucket`; sets the headers; throws 429 when over `limit`. */
  hit(bucket: string, limit: number, reply: FastifyReply): void {
    const now = this.#now();
    const windowStart = now - (now % WINDOW_MS);
    let window = this.#windows.get(bucket);
    if (window === undefined || window.start_ms !== windowStart) {
      if (this.#windows.size >= MAX_TRACKED) this.#sweep(windowStart);
      window = { start_ms: windowStart, count: 0 };
      this.#windows.set(bucket, window);
    }
    window.count += 1;
    const resetSeconds = Math.max(1, Math.ceil((windowStart + WINDOW_MS - now) / 1000));
    reply.header('ratelimit-limit', String(limit));
    reply.header('ratelimit-remaining', String(Math.max(0, limit - window.count)));
    reply.header('ratelimit-reset', String(resetSeconds));
    if (window.count > limit) {
      throw new AppError('rate_limited', 'rate_limited', `more than ${limit} requests this minute; retry in ${resetSeconds} s`, {
        headers: { 'retry-after': String(resetSeconds) },
      });
    }
  }

  #sweep(currentStart: number): void {
    for (const [bucket, window] of this.#windows) if (window.start_ms !== currentStart) this.#windows.delete(bucket);
    // Still full of live buckets (an attack from many addresses): start afresh rather than grow.
    if (this.#windows.size >= MAX_TRACKED) this.#windows.clear();
  }
}
