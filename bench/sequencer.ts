// The ledger's sequencer by itself: `npm run bench -- --only sequencer`. On each engine, a fresh
// database; each round writes 50,000 journal entries (BENCH_SEQUENCER_ENTRIES) in one statement,
// each with a hash, as a writer that does not place them leaves them (named waiting by the
// journal's trigger, on SQLite too), and times the job's path taking them all into the log (a
// thousand a transaction, as a server's job does, without the CLI's vacuum or look from the
// start). Reports the time an entry, median of five rounds (BENCH_SEQUENCER_ROUNDS), with nothing
// else running: the work the job adds beside a write load, steadier on a shared machine than the
// load's own requests a second (docs/performance-history.md, 2026-12-01). The rounds' log is
// then walked whole: every leaf from 0, each chain hash from the one before. (The entries have no
// postings and made-up hashes: `almoner check` would name every one.)
import pino from 'pino';
import { sql } from 'kysely';
import { loadConfig } from '../src/config.ts';
import { openPlatform } from '../src/platform.ts';
import { dialectOf } from '../src/db/dialect.ts';
import { inLogOrder, sequenceAll } from '../src/modules/ledger/index.ts';
import { ChainWalk } from '../src/modules/ledger/ledger.verify.ts';
import { freshDatabase } from './processes.ts';
import { median } from './stats.ts';

const ENTRIES = Number(process.env.BENCH_SEQUENCER_ENTRIES ?? 50_000);
const ROUNDS = Number(process.env.BENCH_SEQUENCER_ROUNDS ?? 5);

export async function benchSequencer(engines: readonly string[], log: (line: string) => void): Promise<string[]> {
  const rows = [
    `The ledger's sequencer (rules §26): ${ENTRIES.toLocaleString('en-US')} waiting journal entries taken into the log, a thousand a transaction, ${ROUNDS} rounds.`,
    '',
    "| engine | time an entry, median (rounds) | of it the process's own CPU, median | the log checked |",
    '|---|---|---|---|',
  ];
  for (const engine of engines) {
    const { databaseUrl, cleanup } = await freshDatabase(engine, 'sequencer');
    const config = loadConfig({}, { databaseUrl, dbStatementTimeoutMs: 0 });
    const platform = await openPlatform(config, { log: pino({ level: 'warn' }) });
    const { deps } = platform;
    try {
      const postgres = dialectOf(deps.db).engine === 'postgres';
      // A distinct 64-hex-digit hash an entry (its number, zero-padded): what the chain reads.
      const hash = postgres ? sql`lpad(to_hex(g.n), 64, '0')` : sql`printf('%064x', g.n)`;
      const times: number[] = [];
      const cpuTimes: number[] = [];
      for (let round = 1; round <= ROUNDS; round++) {
        await sql`with recursive g(n) as (select 1 union all select n + 1 from g where n < ${ENTRIES})
          insert into journal_entries (memo, created_at, entry_hash) select 'bench', '2026-01-01T00:00:00.000Z', ${hash} from g`.execute(deps.db);
        // The round starts from tables without the last one's dead rows, as autovacuum leaves them.
        if (postgres) await sql`vacuum (analyze) journal_entries, ledger_places`.execute(deps.db);
        const started = performance.now();
        const cpuBefore = process.cpuUsage();
        const size = await sequenceAll(deps, 'live', 3_600_000);
        const cpu = process.cpuUsage(cpuBefore);
        const us = ((performance.now() - started) * 1000) / ENTRIES;
        // This process's own CPU (user and system): on PostgreSQL the rest of the time is the database's.
        const cpuUs = (cpu.user + cpu.system) / ENTRIES;
        if (size !== round * ENTRIES) throw new Error(`the log has ${size} entries after round ${round}, not ${round * ENTRIES}`);
        times.push(us);
        cpuTimes.push(cpuUs);
        log(`  ${engine}: round ${round}, ${ENTRIES.toLocaleString('en-US')} entries placed, ${us.toFixed(1)} us an entry, ${cpuUs.toFixed(1)} of them this process's CPU`);
      }
      // Every place from 0 without a gap, each chain hash from the one before and the entry's hash.
      const walk = new ChainWalk();
      for await (const e of inLogOrder(deps.db, 'live'))
        walk.add({ leaf_index: e.log_seq as number, hash: e.entry_hash as string, chain_hash: e.chain_hash as string, name: `entry ${e.id}` });
      if (walk.problems.length > 0 || walk.leaves.length !== ROUNDS * ENTRIES) throw new Error(`the log does not verify: ${walk.problems.join('; ')}`);
      rows.push(
        `| ${engine} | **${median(times).toFixed(1)} us** (${times.map((t) => t.toFixed(1)).join(', ')}) | ${median(cpuTimes).toFixed(1)} us | ${walk.leaves.length} entries, each chained |`,
      );
    } finally {
      await platform.close();
      await cleanup();
    }
  }
  rows.push('');
  return rows;
}
