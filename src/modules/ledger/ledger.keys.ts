// The log's signing key (docs/rules.md §26): the configured one, else one the node makes and keeps,
// the origin its checkpoints name, and the verifier keys a donor checks them with.
import { generateKeyPairSync } from 'node:crypto';
import type { Deps } from '../../deps.ts';
import type { Book } from '../../shared/book.ts';
import { noteKey, verifierKeyText, type NoteKey } from '../../shared/signed-note.ts';
import * as store from './ledger.checkpoint.store.ts';

/** The name a log key is given: LEDGER_KEY_NAME, else the public URL's host and "/ledger". */
function configuredKeyName(deps: Deps): string {
  return deps.config.ledger.keyName || `${new URL(deps.config.publicUrl).host}/ledger`;
}

/** The origin line of a book's checkpoints signed by the key named `keyName`. */
export function originFor(keyName: string, book: Book): string {
  return `${keyName}/${book}`;
}

/**
 * The key that signs checkpoints: the configured one, else the one the node made (made now if
 * none), under the name it was made with (a name from the public URL must not move with a port).
 */
export async function logKey(deps: Deps): Promise<NoteKey> {
  if (deps.config.ledger.signingKey !== '') return noteKey(configuredKeyName(deps), deps.config.ledger.signingKey);
  let made = await store.currentMadeKey(deps.db);
  if (made === undefined) {
    const { privateKey } = generateKeyPairSync('ed25519');
    await store.insertMadeKey(deps.db, {
      name: configuredKeyName(deps),
      private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
      created_at: deps.clock.now().toISOString(),
    });
    // Two nodes making one at once: both sign with the newest from now on.
    made = await store.currentMadeKey(deps.db);
  }
  const { name, private_key } = made as { name: string; private_key: string };
  return noteKey(name, private_key);
}

/** The origin of a book's log, as its checkpoints name it now. */
export async function logOrigin(deps: Deps, book: Book): Promise<string> {
  return originFor((await logKey(deps)).name, book);
}

/** The verifier keys of every key the platform signs or signed with: the configured one, and those it made. */
export async function platformVerifierKeys(deps: Deps): Promise<string[]> {
  const keys = (await store.madeKeys(deps.db)).map((k) => noteKey(k.name, k.private_key));
  if (deps.config.ledger.signingKey !== '') keys.push(noteKey(configuredKeyName(deps), deps.config.ledger.signingKey));
  return keys.map((k) => verifierKeyText(k.name, k.publicKey));
}

/** The verifier key of the log key (what a verifier is given). */
export async function logVerifierKey(deps: Deps): Promise<string> {
  const key = await logKey(deps);
  return verifierKeyText(key.name, key.publicKey);
}
