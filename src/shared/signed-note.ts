// Signed notes (C2SP signed-note) with Ed25519 keys, the checkpoints of a transparency log in
// them (C2SP tlog-checkpoint), and witnesses' cosignatures (C2SP tlog-cosignature, cosignature/v1).
// A note is its text, a blank line, and one line per signature: "— <name> <base64(key id || sig)>".
// A key's id is the first 4 bytes of SHA-256(name || "\n" || type || public key), the type 0x01 for
// a signer's Ed25519 key and 0x04 for a witness's; a verifier key is "<name>+<hex id>+<base64(type || key)>".
import { createHash, createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';

const ED25519 = 0x01;
const COSIGNATURE_V1 = 0x04;
const DASH = '\u2014';

/** A key that signs notes: its name, its id, its raw public key, and a signer. */
export interface NoteKey {
  name: string;
  id: Buffer;
  publicKey: Buffer;
  sign(message: Buffer): Buffer;
}

/** A key that checks notes: its name, its type (0x01 signer, 0x04 witness), id and raw public key. */
export interface VerifierKey {
  name: string;
  type: number;
  id: Buffer;
  publicKey: Buffer;
}

function keyId(name: string, type: number, publicKey: Buffer): Buffer {
  return createHash('sha256')
    .update(Buffer.concat([Buffer.from(`${name}\n`, 'utf8'), Buffer.of(type), publicKey]))
    .digest()
    .subarray(0, 4);
}

function assertName(name: string): void {
  if (name.length === 0 || /[\s+]/u.test(name)) throw new Error(`a key's name is non-empty, without spaces or '+': ${JSON.stringify(name)}`);
}

function rawPublicKey(key: KeyObject): Buffer {
  const jwk = key.export({ format: 'jwk' });
  if (jwk.crv !== 'Ed25519' || typeof jwk.x !== 'string') throw new Error('an Ed25519 key is needed');
  return Buffer.from(jwk.x, 'base64url');
}

function publicKeyObject(raw: Buffer): KeyObject {
  return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: raw.toString('base64url') }, format: 'jwk' });
}

/** A signer's key (type 0x01), or a witness's (0x04), from an Ed25519 private key (PKCS #8 PEM or KeyObject). */
export function noteKey(name: string, privateKey: string | KeyObject, type: number = ED25519): NoteKey {
  assertName(name);
  const key = typeof privateKey === 'string' ? createPrivateKey(privateKey) : privateKey;
  const publicKey = rawPublicKey(createPublicKey(key));
  return { name, id: keyId(name, type, publicKey), publicKey, sign: (message) => sign(null, message, key) };
}

/** The verifier key of a note key: "<name>+<hex id>+<base64(type || key)>". */
export function verifierKeyText(name: string, publicKey: Buffer, type: number = ED25519): string {
  return `${name}+${keyId(name, type, publicKey).toString('hex')}+${Buffer.concat([Buffer.of(type), publicKey]).toString('base64')}`;
}

/** Reads a verifier key; throws when it is malformed or its id does not match its name and key. */
export function parseVerifierKey(text: string): VerifierKey {
  // The key's base64 may hold '+' itself: the name and the id are the first two parts.
  const m = /^([^+\s]+)\+([0-9a-fA-F]{8})\+([A-Za-z0-9+/=]+)$/.exec(text.trim());
  if (m === null) throw new Error(`a verifier key is <name>+<hex id>+<base64 key>: ${JSON.stringify(text)}`);
  const [, name, hex, encoded] = m as unknown as [string, string, string, string];
  assertName(name);
  const bytes = Buffer.from(encoded, 'base64');
  const type = bytes[0];
  if (bytes.length !== 33 || (type !== ED25519 && type !== COSIGNATURE_V1))
    throw new Error(`verifier key ${name}: an Ed25519 key (type 1) or a cosignature/v1 key (type 4) of 32 bytes`);
  const publicKey = bytes.subarray(1);
  const id = keyId(name, type, publicKey);
  if (id.toString('hex') !== hex.toLowerCase()) throw new Error(`verifier key ${name}: its id ${hex} is not its key's (${id.toString('hex')})`);
  return { name, type, id, publicKey };
}

/** A tlog-checkpoint's text: the log's origin, its size, its root hash (base64), each on a line. */
export function checkpointText(origin: string, size: number, root: Buffer): string {
  if (origin.length === 0 || origin.includes('\n')) throw new Error('an origin is one line');
  return `${origin}\n${size}\n${root.toString('base64')}\n`;
}

/** Reads a checkpoint's text (the first three lines; extension lines may follow). */
export function parseCheckpoint(text: string): { origin: string; size: number; root: Buffer } {
  const [origin = '', sizeText = '', rootText = ''] = text.split('\n');
  const size = Number(sizeText);
  const root = Buffer.from(rootText, 'base64');
  if (origin === '' || !/^(0|[1-9][0-9]*)$/.test(sizeText) || !Number.isSafeInteger(size) || root.length !== 32)
    throw new Error('not a checkpoint: <origin>, <size>, <base64 root> on three lines');
  return { origin, size, root };
}

/** A signature line: "— <name> <base64(id || signature)>". */
function signatureLine(name: string, id: Buffer, signature: Buffer): string {
  return `${DASH} ${name} ${Buffer.concat([id, signature]).toString('base64')}\n`;
}

/** The note `text` (ending in a newline) signed by `key`. */
export function signNote(text: string, key: NoteKey): string {
  if (!text.endsWith('\n')) throw new Error("a note's text ends in a newline");
  return `${text}\n${signatureLine(key.name, key.id, key.sign(Buffer.from(text, 'utf8')))}`;
}

/** What a witness signs for a checkpoint (cosignature/v1): a header, the time, the checkpoint's text. */
function cosignedMessage(text: string, time: number): Buffer {
  return Buffer.from(`cosignature/v1\ntime ${time}\n${text}`, 'utf8');
}

/** A witness's cosignature line of a checkpoint's text at `time` (seconds since 1970). */
export function cosign(text: string, witness: NoteKey, time: number): string {
  const stamp = Buffer.alloc(8);
  stamp.writeBigUInt64BE(BigInt(time));
  return signatureLine(witness.name, witness.id, Buffer.concat([stamp, witness.sign(cosignedMessage(text, time))]));
}

/** A note's text and its signature lines as they are written. */
export function splitNote(note: string): { text: string; signatures: Array<{ name: string; bytes: Buffer; line: string }> } {
  const at = note.lastIndexOf('\n\n');
  if (at < 0) throw new Error('a signed note is its text, a blank line and its signatures');
  const text = note.slice(0, at + 1);
  const signatures = note
    .slice(at + 2)
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const m = /^\u2014 (\S+) ([A-Za-z0-9+/=]+)$/u.exec(line);
      if (m === null) throw new Error(`not a signature line: ${JSON.stringify(line)}`);
      return { name: m[1] as string, bytes: Buffer.from(m[2] as string, 'base64'), line: `${line}\n` };
    });
  return { text, signatures };
}

/**
 * The keys among `keys` whose signatures (type 0x01) or cosignatures (0x04, with their times) the
 * note carries and that verify; lines of other keys are ignored, a bad signature of a known key is not.
 */
export function verifyNote(note: string, keys: readonly VerifierKey[]): { text: string; signedBy: string[]; cosignedBy: Array<{ name: string; time: number }> } {
  const { text, signatures } = splitNote(note);
  const signedBy: string[] = [];
  const cosignedBy: Array<{ name: string; time: number }> = [];
  for (const { name, bytes } of signatures) {
    const key = keys.find((k) => k.name === name && bytes.length >= 4 && k.id.equals(bytes.subarray(0, 4)));
    if (key === undefined) continue;
    const publicKey = publicKeyObject(key.publicKey);
    if (key.type === ED25519) {
      if (bytes.length !== 68 || !verify(null, Buffer.from(text, 'utf8'), publicKey, bytes.subarray(4))) throw new Error(`the signature of ${name} does not verify`);
      signedBy.push(name);
    } else {
      if (bytes.length !== 76) throw new Error(`the cosignature of ${name} is not 76 bytes`);
      const time = Number(bytes.readBigUInt64BE(4));
      if (!verify(null, cosignedMessage(text, time), publicKey, bytes.subarray(12))) throw new Error(`the cosignature of ${name} does not verify`);
      cosignedBy.push({ name, time });
    }
  }
  return { text, signedBy, cosignedBy };
}

export const NOTE_KEY_TYPES = { signer: ED25519, witness: COSIGNATURE_V1 } as const;
