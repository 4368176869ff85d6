// `almoner ledger` and `almoner verify` (docs/rules.md §26): take the journal into its log and
// sign a checkpoint now, show the log's key, export a book's log, keep a witness's cosignatures;
// and check a donation's proof, or an exported log against published checkpoints, offline.
import { readFileSync } from 'node:fs';
import { writeWholeAsItGoes } from '../shared/files.ts';
import { parseArgs } from 'node:util';
import {
  acceptCosignatures,
  checkpoint,
  codePrefix,
  exportJournal,
  verificationCode,
  logOrigin,
  logVerifierKey,
  verifyExport,
  type ExportedLeaf,
  type PublishedCheckpoint,
} from '../modules/ledger/index.ts';
import { isBook, type Book } from '../shared/book.ts';
import { leafHash, verifyInclusion } from '../shared/merkle.ts';
import { parseCheckpoint, parseVerifierKey, verifyNote } from '../shared/signed-note.ts';
import { UsageError, countProgress, id, withPlatform } from './common.ts';

/**
 * `checkpoint` and `export` work through the whole log (a journal of millions taken up at once, every
 * entry read), so, like `almoner check`, they run without the statement timeout that bounds a
 * request's statements: a busy database slows them and never stops them half done.
 */
const WHOLE_LOG = { whole: true } as const;

function bookOf(value: string | undefined): Book {
  const book = value ?? 'live';
  if (!isBook(book)) throw new UsageError('--book is live or test');
  return book;
}

export async function ledgerCommand(sub: string | undefined, rest: string[]): Promise<number> {
  const { values } = parseArgs({ args: rest, strict: true, options: { book: { type: 'string' }, out: { type: 'string' }, size: { type: 'string' }, file: { type: 'string' } } });
  const book = bookOf(values.book);
  switch (sub) {
    case 'checkpoint':
      return withPlatform(async ({ deps }) => {
        const made = await checkpoint(deps, book, { force: true, onPlaced: countProgress((n) => `taken ${n} entries into the ${book} log...`) });
        if (made === undefined) process.stdout.write(`The ${book} journal is empty: no checkpoint.\n`);
        else process.stdout.write(`Checkpoint of the ${book} log at size ${made.size}:\n${made.note}`);
        return 0;
      }, WHOLE_LOG);
    case 'key':
      return withPlatform(async ({ deps }) => {
        process.stdout.write(`${await logVerifierKey(deps)}\norigin: ${await logOrigin(deps, book)}\n`);
        return 0;
      });
    case 'export': {
      if (values.out === undefined) throw new UsageError('ledger export --out FILE [--book live|test]');
      const out = values.out;
      return withPlatform(async ({ deps }) => {
        const count = await writeWholeAsItGoes(out, async (write) => {
          const told = countProgress((n) => `written ${n} entries of the ${book} log...`);
          let n = 0;
          return exportJournal(deps, book, (line) => {
            write(`${JSON.stringify(line)}\n`);
            told((n += 1));
          });
        });
        process.stdout.write(`${count} entries of the ${book} log written to ${out}\n`);
        return 0;
      }, WHOLE_LOG);
    }
    case 'cosign': {
      if (values.size === undefined || values.file === undefined) throw new UsageError('ledger cosign --size N --file COSIGNATURES [--book live|test]');
      const size = id(values.size, '--size');
      const lines = readFileSync(values.file, 'utf8');
      return withPlatform(async ({ deps }) => {
        const kept = await acceptCosignatures(deps, book, size, lines);
        process.stdout.write(
          kept.length === 0
            ? 'No cosignature of a configured witness (LEDGER_WITNESSES) verified: none kept.\n'
            : `Kept the cosignatures of ${kept.join(', ')} on checkpoint ${size}.\n`,
        );
        return kept.length === 0 ? 1 : 0;
      });
    }
    default:
      throw new UsageError(`unknown ledger command: ${sub ?? '(none)'} (checkpoint, key, export, cosign)`);
  }
}

/** Problems of a donation's proof (GET /v1/donations/{id}/proof) against the log's key and witnesses. */
export function proofProblems(
  proof: { checkpoint: { note: string }; entries: Array<{ id: number; leaf_index: number; encoded: string; leaf_hash: string; inclusion_proof: string[] }> },
  key: string,
  witnesses: string[],
  threshold: number,
): string[] {
  const opened = verifyNote(proof.checkpoint.note, [parseVerifierKey(key), ...witnesses.map(parseVerifierKey)]);
  const problems: string[] = [];
  if (opened.signedBy.length === 0) problems.push('the checkpoint is not signed by the key given');
  if (opened.cosignedBy.length < threshold) problems.push(`${opened.cosignedBy.length} witness cosignatures, fewer than ${threshold}`);
  const { size, root } = parseCheckpoint(opened.text);
  if (proof.entries.length === 0) problems.push('the proof names no entry');
  for (const e of proof.entries) {
    const leaf = leafHash(Buffer.from(e.encoded, 'utf8'));
    if (!leaf.equals(Buffer.from(e.leaf_hash, 'base64'))) problems.push(`entry ${e.id}: its leaf hash is not that of its encoding`);
    else if (
      !verifyInclusion(
        leaf,
        e.leaf_index,
        size,
        e.inclusion_proof.map((h) => Buffer.from(h, 'base64')),
        root,
      )
    )
      problems.push(`entry ${e.id} is not in the checkpoint of size ${size}`);
  }
  return problems;
}

type Proof = Parameters<typeof proofProblems>[0];
interface ReceiptDoc {
  number: string;
  contribution_id: number;
  ledger: { verification_code: string; entry_id: number; proof: Proof | null } | null;
}

/** Problems of a receipt's ledger part (GET /v1/contributions/{id}/receipt): its proof, its entries the contribution's, its code the named entry's. */
export function receiptProblems(receipt: ReceiptDoc, key: string, witnesses: string[], threshold: number): string[] {
  const proof = receipt.ledger?.proof;
  if (receipt.ledger === null || proof === null || proof === undefined) return [`receipt ${receipt.number}: its entries are in no signed checkpoint yet`];
  const problems = proofProblems(proof, key, witnesses, threshold);
  for (const e of proof.entries)
    if ((JSON.parse(e.encoded) as unknown[])[7] !== receipt.contribution_id) problems.push(`entry ${e.id} is not of contribution ${receipt.contribution_id}`);
  const named = proof.entries.find((e) => e.id === receipt.ledger?.entry_id);
  if (named === undefined) problems.push(`the proof holds no entry ${receipt.ledger.entry_id}`);
  else if (verificationCode(Buffer.from(named.leaf_hash, 'base64').toString('hex')) !== receipt.ledger.verification_code)
    problems.push(`the verification code ${receipt.ledger.verification_code} is not entry ${named.id}'s`);
  return problems;
}

/** The exported entry a receipt's verification code names, as a line to print; throws a usage error for a malformed code. */
function entryOfCode(lines: readonly ExportedLeaf[], code: string): { found: string | undefined } {
  const prefix = codePrefix(code);
  if (prefix === undefined) throw new UsageError('--code is a receipt verification code: four groups of four hex digits, XXXX-XXXX-XXXX-XXXX');
  const line = lines.find((l) => leafHash(Buffer.from(l.encoded, 'utf8')).toString('hex').startsWith(prefix));
  return { found: line === undefined ? undefined : `code ${code} is leaf ${line.leaf_index}: ${line.encoded}` };
}

/**
 * `almoner verify PROOF|RECEIPT --key K` or `almoner verify --export FILE --checkpoints FILE --key K
 * --origin O [--code CODE]`: offline, no database.
 */
export async function verifyCommand(sub: string | undefined, rest: string[]): Promise<number> {
  const args = [sub, ...rest].filter((a): a is string => a !== undefined);
  const { values, positionals } = parseArgs({
    args,
    strict: true,
    allowPositionals: true,
    options: {
      key: { type: 'string' },
      export: { type: 'string' },
      checkpoints: { type: 'string' },
      origin: { type: 'string' },
      witness: { type: 'string', multiple: true },
      threshold: { type: 'string' },
      code: { type: 'string' },
    },
  });
  if (values.key === undefined) throw new UsageError("verify needs --key, the log's verifier key (GET /v1/ledger/key, almoner ledger key)");
  const threshold = values.threshold === undefined ? 0 : Number(values.threshold);
  if (!Number.isInteger(threshold) || threshold < 0) throw new UsageError('--threshold is a whole number');
  const witnesses = values.witness ?? [];
  let problems: string[];
  let what: string;
  if (values.export !== undefined) {
    if (values.checkpoints === undefined || values.origin === undefined) throw new UsageError('verify --export FILE --checkpoints FILE --origin ORIGIN --key KEY');
    const lines = readFileSync(values.export, 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as ExportedLeaf);
    const published = JSON.parse(readFileSync(values.checkpoints, 'utf8')) as PublishedCheckpoint[] | { items: PublishedCheckpoint[] };
    const checkpoints = Array.isArray(published) ? published : published.items;
    problems = verifyExport(lines, checkpoints, values.key, values.origin, { keys: witnesses, threshold });
    what = `${lines.length} entries against ${checkpoints.length} checkpoints`;
    if (values.code !== undefined) {
      const { found } = entryOfCode(lines, values.code);
      if (found === undefined) problems.push(`no entry of the log has the verification code ${values.code}`);
      else what = `${what}; ${found}`;
    }
  } else {
    if (positionals.length !== 1 || values.code !== undefined)
      throw new UsageError('verify PROOF.json|RECEIPT.json --key KEY [--witness KEY ...] [--threshold N]; --code needs --export');
    const doc = JSON.parse(readFileSync(positionals[0] as string, 'utf8'));
    if (doc.ledger !== undefined) {
      const receipt = doc as ReceiptDoc;
      problems = receiptProblems(receipt, values.key, witnesses, threshold);
      what = `receipt ${receipt.number} (contribution ${receipt.contribution_id}, code ${receipt.ledger?.verification_code ?? 'none'})`;
    } else {
      problems = proofProblems(doc, values.key, witnesses, threshold);
      what = `donation ${doc.donation_id}: ${doc.entries?.length ?? 0} entries`;
    }
  }
  if (problems.length === 0) {
    process.stdout.write(`verified: ${what}\n`);
    return 0;
  }
  process.stdout.write(`NOT verified: ${what}\n${problems.map((p) => `  ${p}\n`).join('')}`);
  return 1;
}
