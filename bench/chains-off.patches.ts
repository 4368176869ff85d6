// The patches bench/chains-off.ts applies as the app server's modules load (read there why),
// apart so that a test can check them against the code without loading the hook.

/** Each: in the module whose URL ends with `file`, the text `from` (there exactly once) becomes `to`. */
export const PATCHES: ReadonlyArray<{ file: string; from: string; to: string }> = [
  {
    file: '/src/modules/ledger/ledger.store.ts',
    from: 'const hash = entryHash({ ...c, id: e.id, created_at: at, postings: e.postings });',
    to: 'const hash = null;',
  },
  {
    file: '/src/modules/ledger/ledger.tail.ts',
    from: "if (dialectOf(trx).engine !== 'sqlite') return undefined;",
    to: 'return undefined;',
  },
];

/** `source` with the patch applied; throws when the text it replaces is not there once. */
export function patched(source: string, patch: { file: string; from: string; to: string }): string {
  const at = source.indexOf(patch.from);
  if (at < 0 || source.indexOf(patch.from, at + 1) >= 0) {
    throw new Error(`bench/chains-off.ts: "${patch.from}" is not in ${patch.file} once; update the patch to the code`);
  }
  return source.slice(0, at) + patch.to + source.slice(at + patch.from.length);
}
