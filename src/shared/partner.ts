// Partner fields (docs/rules.md §21): the id an app (or a donor) keeps for an object, and string
// metadata on it, Stripe's limits: at most 50 keys of 1 to 40 characters, values of at most 500.
// Stored as JSON text; a change sets keys, and a key set to "" removes it. No I/O here.
import { fieldErrors } from './errors.ts';

export const EXTERNAL_ID_MAX = 255;
export const METADATA_KEYS_MAX = 50;
export const METADATA_KEY_MAX = 40;
export const METADATA_VALUE_MAX = 500;

export type Metadata = Readonly<Record<string, string>>;

/** Why `value` is not metadata (the HTTP schema refuses the same), or undefined. */
export function metadataProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'must be an object of strings';
  const entries = Object.entries(value);
  if (entries.length > METADATA_KEYS_MAX) return `has at most ${METADATA_KEYS_MAX} keys`;
  for (const [key, text] of entries) {
    if (key.length < 1 || key.length > METADATA_KEY_MAX) return `keys are 1 to ${METADATA_KEY_MAX} characters`;
    if (typeof text !== 'string') return `the value of ${JSON.stringify(key)} must be a string`;
    if (text.length > METADATA_VALUE_MAX) return `values are at most ${METADATA_VALUE_MAX} characters`;
  }
  return undefined;
}

/** Checks metadata given on create (where "" means no such key) and returns it as stored: JSON text, or null for none. */
export function metadataToStore(value: unknown): string | null {
  if (value === undefined) return null;
  return changedMetadata(null, value);
}

/** `stored` with `change` applied (a key set to "" removed), as stored; throws validation_failed naming the field. */
export function changedMetadata(stored: string | null, change: unknown): string | null {
  const problem = metadataProblem(change);
  if (problem !== undefined) throw fieldErrors([{ field: 'metadata', code: 'validation_failed', message: problem }]);
  const merged: Record<string, string> = { ...metadataOf(stored) };
  for (const [key, text] of Object.entries(change as Metadata)) {
    if (text === '') delete merged[key];
    else merged[key] = text;
  }
  if (Object.keys(merged).length > METADATA_KEYS_MAX) throw fieldErrors([{ field: 'metadata', code: 'validation_failed', message: `has at most ${METADATA_KEYS_MAX} keys` }]);
  return Object.keys(merged).length === 0 ? null : JSON.stringify(merged);
}

/** Stored metadata as an object ({} for none). */
export function metadataOf(stored: string | null): Metadata {
  return stored === null ? {} : (JSON.parse(stored) as Metadata);
}

/** An external id as given (trimmed of nothing: it is the partner's), or a field error. */
export function externalIdOf(value: string | undefined): string | null {
  if (value === undefined) return null;
  if (value.length < 1 || value.length > EXTERNAL_ID_MAX)
    throw fieldErrors([{ field: 'external_id', code: 'validation_failed', message: `must be 1 to ${EXTERNAL_ID_MAX} characters` }]);
  return value;
}
