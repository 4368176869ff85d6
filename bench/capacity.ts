// `npm run bench:capacity`: disk per million donations on each engine. Seeds
// two sizes of the bench database (every donation with its full journal: a
// hold and a payment, funded by a contribution) and reports the growth between
// them, so the fixed cost of an empty database is left out.
import { statSync } from 'node:fs';
import { seedBench } from './seed.ts';
import { freshDatabase, withClient } from './processes.ts';

const SIZES = [20_000, 120_000];
const log = (line: string) => process.stdout.write(`${line}\n`);

async function sizeOf(engine: string, url: string): Promise<number> {
  if (engine === 'sqlite') {
    const file = url.replace(/^sqlite:/, '');
    const wal = `${file}-wal`;
    return statSync(file).size + (statSync(wal, { throwIfNoEntry: false })?.size ?? 0);
  }
  return withClient(url, async (client) => {
    await client.query('vacuum analyze');
    // The bench database is a database of its own (bench/processes.ts): its tables with their indexes and TOAST.
    const r = await client.query(
      `select coalesce(sum(pg_total_relation_size(c.oid)), 0) as bytes from pg_class c join pg_namespace n on n.oid = c.relnamespace where c.relkind = 'r' and n.nspname = current_schema()`,
    );
    return Number(r.rows[0]?.bytes ?? 0);
  });
}

for (const engine of (process.env.ENGINES ?? 'sqlite,postgres').split(',')) {
  const sizes: number[] = [];
  for (const n of SIZES) {
    const db = await freshDatabase(engine, 'capacity');
    try {
      await seedBench(db.databaseUrl, 2, n / 2, () => {});
      sizes.push(await sizeOf(engine, db.databaseUrl));
    } finally {
      await db.cleanup();
    }
  }
  const [small, large] = sizes as [number, number];
  const perMillion = ((large - small) / (SIZES[1]! - SIZES[0]!)) * 1_000_000;
  log(
    `${engine}: ${SIZES[0]} donations ${(small / 2 ** 20).toFixed(1)} MiB, ${SIZES[1]} donations ${(large / 2 ** 20).toFixed(1)} MiB: ${(perMillion / 2 ** 30).toFixed(2)} GiB per million donations (with their journal)`,
  );
}
