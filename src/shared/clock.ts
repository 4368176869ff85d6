// Time and randomness come in through Deps so tests can fix them.
import { randomBytes, randomUUID } from 'node:crypto';

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export interface Ids {
  uuid(): string;
  /** `length` characters of base62 from the CSPRNG, without modulo bias. */
  base62(length: number): string;
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

export const cryptoIds: Ids = {
  uuid: () => randomUUID(),
  base62(length: number): string {
    let out = '';
    while (out.length < length) {
      for (const byte of randomBytes(length * 2)) {
        // 248 = 4 * 62: bytes at or above it are dropped to keep every character equally likely.
        if (byte < 248 && out.length < length) out += BASE62[byte % 62];
      }
    }
    return out;
  },
};
