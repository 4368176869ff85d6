// Partner fields (docs/rules.md §21): the id an app (or a donor) keeps for an object, and string
// metadata on it, Stripe's limits: at most 50 keys of 1 to 40 characters, values of at most 500.
// Stored as JSON text; a change sets keys, and a key set to "" removes it. No I/O here.
import { conflict, fieldErrors } from './errors.ts';

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

/** Stored partner fields as the owner's forms show them: each only when set. */
export function ownerPartnerFields(stored: PartnerColumns): { external_id?: string; metadata?: Metadata } {
  return { external_id: stored.external_id ?? undefined, metadata: stored.metadata === null ? undefined : metadataOf(stored.metadata) };
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

/** Partner fields as stored: the external id and the metadata's JSON text, each null for none. */
export interface PartnerColumns {
  external_id: string | null;
  metadata: string | null;
}

/** An object's partner fields as given on create, checked, as stored. Throws validation_failed. */
export function partnerColumns(input: { external_id?: string; metadata?: unknown }): PartnerColumns {
  return { external_id: externalIdOf(input.external_id), metadata: metadataToStore(input.metadata) };
}

/** How one kind of object keeps its external ids: its name in messages, the owner's object that has one, and whether an error is the unique index's refusal. */
export interface ExternalIds {
  kind: string;
  holder: (externalId: string) => Promise<number | string | undefined>;
  isTaken: (error: unknown) => boolean;
}

/**
 * Runs `make` (which creates the owner's object with `externalId`) unless the owner has one with
 * it: then, or when one made at the same moment took it first (the unique index), 409
 * external_id_exists naming that object.
 */
export async function withExternalId<T>(ids: ExternalIds, externalId: string | null, make: () => Promise<T>): Promise<T> {
  if (externalId === null) return make();
  const taken = (holder: number | string) => conflict('external_id_exists', `${ids.kind} ${holder} has the external_id ${JSON.stringify(externalId)} already`);
  const existing = await ids.holder(externalId);
  if (existing !== undefined) throw taken(existing);
  try {
    return await make();
  } catch (error) {
    const first = ids.isTaken(error) ? await ids.holder(externalId) : undefined;
    if (first !== undefined) throw taken(first);
    throw error;
  }
}
