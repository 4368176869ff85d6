// Fixed one-minute windows per key (and per IP for requests without a valid
// key), with the RateLimit-* headers of DECISIONS 10. Counted in Redis when
// REDIS_URL is set, so every node shares one count; in process otherwise.
import type { FastifyReply } from 'fastify';
import { Redis } from 'ioredis';
import { AppError } from '../shared/errors.ts';

const WINDOW_MS = 60_000;
const MAX_TRACKED = 100_000;

/** Counts requests of a bucket in a window; returns the count including this one. */
export interface WindowCounter {
  increment(bucket: string, windowStart: number): Promise<number>;
  close(): Promise<void>;
}

export class InProcessCounter implements WindowCounter {
  readonly #windows = new Map<string, { start_ms: number; count: number }>();

  async increment(bucket: string, windowStart: number): Promise<number> {
    let window = this.#windows.get(bucket);
    if (window === undefined || window.start_ms !== windowStart) {
      if (this.#windows.size >= MAX_TRACKED) this.#sweep(windowStart);
      window = { start_ms: windowStart, count: 0 };
      this.#windows.set(bucket, window);
    }
    window.count += 1;
    return window.count;
  }

  #sweep(currentStart: number): void {
    for (const [bucket, window] of this.#windows) if (window.start_ms !== currentStart) this.#windows.delete(bucket);
    // Still full of live buckets (an attack from many addresses): start afresh rather than grow.
    if (this.#windows.size >= MAX_TRACKED) this.#windows.clear();
  }

  async close(): Promise<void> {}
}

/**
 * One count for all nodes: INCR of a key per bucket and window, expiring
 * after the window. If Redis cannot be reached the node counts alone for
 * that request rather than refuse traffic.
 */
export class RedisCounter implements WindowCounter {
  readonly #redis: Redis;
  readonly #fallback = new InProcessCounter();
  readonly #prefix: string;

  constructor(url: string, prefix = 'almoner:ratelimit:') {
    // Commands wait for the first connection, but never long: a slow or absent Redis must not stall requests.
    this.#redis = new Redis(url, { maxRetriesPerRequest: 1, commandTimeout: 300, connectTimeout: 1_000 });
    this.#redis.on('error', () => {}); // reported through the fallback, not as a crash
    this.#prefix = prefix;
  }

  async increment(bucket: string, windowStart: number): Promise<number> {
    const key = `${this.#prefix}${bucket}:${windowStart}`;
    try {
      const results = await this.#redis
        .multi()
        .incr(key)
        .pexpire(key, WINDOW_MS * 2)
        .exec();
      const count = results?.[0]?.[1];
      if (typeof count === 'number') return count;
    } catch {
      // fall through
    }
    return this.#fallback.increment(bucket, windowStart);
  }

  async close(): Promise<void> {
    this.#redis.disconnect();
  }
}

export class RateLimiter {
  readonly #counter: WindowCounter;
  readonly #now: () => number;
  constructor(counter: WindowCounter, now: () => number = Date.now) {
    this.#counter = counter;
    this.#now = now;
  }

  /** Counts one request for `bucket`; sets the headers; throws 429 when over `limit`. */
  async hit(bucket: string, limit: number, reply: FastifyReply): Promise<void> {
    const now = this.#now();
    const windowStart = now - (now % WINDOW_MS);
    const count = await this.#counter.increment(bucket, windowStart);
    const resetSeconds = Math.max(1, Math.ceil((windowStart + WINDOW_MS - now) / 1000));
    reply.header('ratelimit-limit', String(limit));
    reply.header('ratelimit-remaining', String(Math.max(0, limit - count)));
    reply.header('ratelimit-reset', String(resetSeconds));
    if (count > limit) {
      throw new AppError('rate_limited', 'rate_limited', `more than ${limit} requests this minute; retry in ${resetSeconds} s`, {
        headers: { 'retry-after': String(resetSeconds) },
      });
    }
  }

  close(): Promise<void> {
    return this.#counter.close();
  }
}
