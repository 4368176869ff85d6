// ULIDs for request ids: sortable by time, 26 characters of Crockford base32.
import { randomFillSync } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

// One call into the CSPRNG per 256 ids instead of one per id: at thousands of
// requests a second the call itself, not the bytes, was the cost.
const POOL = Buffer.alloc(16 * 256);
let offset = POOL.length;

export function ulid(nowMs: number = Date.now()): string {
  let time = '';
  let t = nowMs;
  for (let i = 0; i < 10; i++) {
    time = ALPHABET[t % 32] + time;
    t = Math.floor(t / 32);
  }
  if (offset === POOL.length) {
    randomFillSync(POOL);
    offset = 0;
  }
  let random = '';
  for (let i = offset; i < offset + 16; i++) random += ALPHABET[(POOL[i] as number) % 32];
  offset += 16;
  return time + random;
}
