// Fixed one-minute windows per key (and per IP for requests without a valid
// key), with the RateLimit-* headers of rules §10. Counted in Redis when
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

/** What a shared counter tells about itself: when it starts and stops sharing (log, metrics). */
export interface SharingEvents {
  /** Counting moved to this node alone (`reason`), or back to Redis. */
  sharing(shared: boolean, reason?: string): void;
  /** One request was counted by this node alone. */
  countedAlone(): void;
}

/**
 * One count for all nodes: INCR of a key per bucket and window, expiring
 * after the window. If Redis cannot be reached the node counts alone rather
 * than refuse or stall traffic: a command is never queued while the
 * connection is down (it fails at once), one that fails or takes longer than
 * `timeoutMs` (REDIS_TIMEOUT_MS, COMMAND_TIMEOUT_MS by default) opens a breaker for `retryMs` (REDIS_RETRY_MS) during which
 * Redis is not asked, and the first command that succeeds afterwards closes it.
 */
export class RedisCounter implements WindowCounter {
  static readonly COMMAND_TIMEOUT_MS = 100;
  readonly #redis: Redis;
  readonly #fallback = new InProcessCounter();
  readonly #prefix: string;
  readonly #events: SharingEvents;
  readonly #now: () => number;
  readonly #retryMs: number;
  #shared = true;
  #retryAt = 0;
  #ready: Promise<void> | undefined;

  constructor(url: string, options: { prefix?: string; retryMs?: number; timeoutMs?: number; events?: SharingEvents; now?: () => number } = {}) {
    const {
      prefix = 'almoner:ratelimit:',
      retryMs = 5_000,
      timeoutMs = RedisCounter.COMMAND_TIMEOUT_MS,
      events = { sharing: () => {}, countedAlone: () => {} },
      now = Date.now,
    } = options;
    this.#retryMs = retryMs;
    // TCP keep-alive finds a connection that died without a word (a host powered off, a NAT entry
    // dropped); so does a command past its timeout, which replaces the connection (#failed).
    this.#redis = new Redis(url, {
      maxRetriesPerRequest: 0,
      commandTimeout: timeoutMs,
      connectTimeout: 1_000,
      enableOfflineQueue: false,
      keepAlive: 5_000,
    });
    this.#redis.on('error', () => {}); // reported through sharing(false), not as a crash
    // Until the first connection is made (or fails), a command waits for it: a node that starts
    // a moment before its first request still shares its counts.
    this.#ready = new Promise<void>((resolve) => {
      const done = () => {
        this.#ready = undefined;
        resolve();
      };
      this.#redis.once('ready', done);
      this.#redis.once('error', done);
      this.#redis.once('end', done);
    });
    this.#prefix = prefix;
    this.#events = events;
    this.#now = now;
  }

  async increment(bucket: string, windowStart: number): Promise<number> {
    if (this.#ready !== undefined) await this.#ready;
    if (this.#redis.status === 'ready' && this.#now() >= this.#retryAt) {
      const key = `${this.#prefix}${bucket}:${windowStart}`;
      try {
        const results = await this.#redis
          .multi()
          .incr(key)
          .pexpire(key, WINDOW_MS * 2)
          .exec();
        const count = results?.[0]?.[1];
        if (typeof count === 'number') {
          this.#share(true);
          return count;
        }
        this.#failed('Redis answered without a count');
      } catch (error) {
        this.#failed((error as Error).message, true);
      }
    } else if (this.#now() >= this.#retryAt) {
      // Not ready when it is time to try again: a connection that never answered its ready check
      // (the far side went silent) is replaced too; one already reconnecting is left to it.
      this.#failed(`not connected (${this.#redis.status})`, this.#redis.status === 'connect' || this.#redis.status === 'connecting');
    }
    this.#events.countedAlone();
    return this.#fallback.increment(bucket, windowStart);
  }

  #failed(reason: string, replaceConnection = false): void {
    this.#retryAt = this.#now() + this.#retryMs;
    this.#share(false, reason);
    // A command that timed out on a connection that looks ready may be on one that died silently:
    // it would stay 'ready' for ever. A new connection finds out; a live Redis answers it at once.
    if (replaceConnection) this.#redis.disconnect(true);
  }

  #share(shared: boolean, reason?: string): void {
    if (this.#shared === shared) return;
    this.#shared = shared;
    this.#events.sharing(shared, reason);
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
