// Settings that hold or name keys: the payee data key, and the ledger's log key, witnesses and
// checkpoints (docs/rules.md §26). Each is checked when the configuration is read.
import { createPrivateKey } from 'node:crypto';
import { integer } from './config.env.ts';
import { NOTE_KEY_TYPES, parseVerifierKey } from './shared/signed-note.ts';

/** PAYEE_DATA_KEY: 32 bytes in base64, or unset (bank details are then refused). */
export function payeeKey(env: NodeJS.ProcessEnv): Buffer | undefined {
  const text = env.PAYEE_DATA_KEY;
  if (text === undefined || text === '') return undefined;
  const key = Buffer.from(text.trim(), 'base64');
  if (key.length !== 32 || key.toString('base64') !== text.trim()) throw new Error('PAYEE_DATA_KEY must be 32 bytes in base64 (openssl rand -base64 32)');
  return key;
}

/**
 * The ledger's log (rules §26). LEDGER_SIGNING_KEY (or _FILE): an Ed25519 private key, PKCS #8
 * PEM (`openssl genpkey -algorithm ed25519`); unset, the node makes one and keeps it in the
 * database. LEDGER_KEY_NAME: the key's name in notes (default: the public URL's host and
 * "/ledger"). A checkpoint is made once LEDGER_CHECKPOINT_ENTRIES new entries are in the log, or
 * every LEDGER_CHECKPOINT_INTERVAL_MS when any are (0: only when asked). LEDGER_WITNESSES: the
 * verifier keys (cosignature/v1) of the witnesses whose cosignatures are accepted, comma-separated.
 */
export interface LedgerConfig {
  signingKey: string;
  keyName: string;
  checkpointEntries: number;
  checkpointIntervalMs: number;
  witnesses: readonly string[];
}

export function ledgerSettings(env: NodeJS.ProcessEnv): LedgerConfig {
  const signingKey = (env.LEDGER_SIGNING_KEY ?? '').trim();
  if (signingKey !== '') {
    let type: string | undefined;
    try {
      type = createPrivateKey(signingKey).asymmetricKeyType;
    } catch (error) {
      throw new Error(`LEDGER_SIGNING_KEY must be an Ed25519 private key in PKCS #8 PEM (openssl genpkey -algorithm ed25519): ${(error as Error).message}`, { cause: error });
    }
    if (type !== 'ed25519') throw new Error(`LEDGER_SIGNING_KEY must be an Ed25519 key, not ${type ?? 'another kind'}`);
  }
  const keyName = (env.LEDGER_KEY_NAME ?? '').trim();
  if (/[\s+]/.test(keyName)) throw new Error(`LEDGER_KEY_NAME has no spaces or '+', got ${JSON.stringify(keyName)}`);
  const witnesses = (env.LEDGER_WITNESSES ?? '')
    .split(',')
    .map((w) => w.trim())
    .filter((w) => w !== '');
  for (const w of witnesses) {
    let type: number;
    try {
      type = parseVerifierKey(w).type;
    } catch (error) {
      throw new Error(`LEDGER_WITNESSES: ${(error as Error).message}`, { cause: error });
    }
    if (type !== NOTE_KEY_TYPES.witness) throw new Error(`LEDGER_WITNESSES: ${w.split('+')[0]} is not a witness's key (cosignature/v1, type 4)`);
  }
  return {
    signingKey,
    keyName,
    checkpointEntries: integer(env, 'LEDGER_CHECKPOINT_ENTRIES', 1000, 1, 10_000_000),
    checkpointIntervalMs: integer(env, 'LEDGER_CHECKPOINT_INTERVAL_MS', 60_000, 0, 86_400_000),
    witnesses,
  };
}
