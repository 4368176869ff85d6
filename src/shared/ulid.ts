// ULIDs for request ids: sortable by time, 26 characters of Crockford base32.
import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

export function ulid(nowMs: number = Date.now()): string {
  let time = '';
  let t = nowMs;
  for (let i = 0; i < 10; i++) {
    time = ALPHABET[t % 32] + time;
    t = Math.floor(t / 32);
  }
  let random = '';
  for (const byte of randomBytes(16)) random += ALPHABET[byte % 32];
  return time + random;
}
