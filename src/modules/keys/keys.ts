// API keys (rules §2): `alm_live_` or `alm_test_` + 40 base62 characters.
// Only the SHA-256 of a key is stored, with its last 4 characters for display.
import type { Ids } from '../../shared/clock.ts';

export type KeyMode = 'live' | 'test';
export const KEY_RANDOM_LENGTH = 40;
const KEY_PATTERN = /^alm_(live|test)_[0-9A-Za-z]{40}$/;

export function generateKey(ids: Ids, mode: KeyMode): string {
  return `alm_${mode}_${ids.base62(KEY_RANDOM_LENGTH)}`;
}

export function looksLikeKey(text: string): boolean {
  return KEY_PATTERN.test(text);
}

export function modeOf(key: string): KeyMode {
  return key.startsWith('alm_test_') ? 'test' : 'live';
}

/** How often `last_used_at` may be written for one key. */
export const LAST_USED_WRITE_INTERVAL_MS = 60_000;
