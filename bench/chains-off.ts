// The baseline of issue 61's measure, the ledger's chains switched off, for `--only chains`: the
// bench's app server is started with `--import` of this module when its arm has BENCH_CHAINS=off.
// The product has no such switch (a journal without hashes could not be verified, docs/rules.md
// §26), so the bench makes one here, as the source of two modules is loaded:
//   - the writer hashes no entry (its rows carry no entry hash), and
//   - it reads no log tail, so it places nothing (on SQLite the writer places, ledger.tail.ts).
// Each patch asserts that the text it replaces is still there: a change to those lines fails the
// bench loudly instead of measuring chains on against chains on. The server also drops what names
// new entries as waiting: SQLite's trigger, PostgreSQL's txid default (bench/waiting-trigger.ts).
import { registerHooks } from 'node:module';
import { PATCHES, patched } from './chains-off.patches.ts';

registerHooks({
  load(url, context, nextLoad) {
    const result = nextLoad(url, context);
    const patch = PATCHES.find((p) => url.endsWith(p.file));
    if (patch === undefined || result.source === undefined) return result;
    return { ...result, source: patched(result.source.toString(), patch) };
  },
});
