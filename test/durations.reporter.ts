// A node:test reporter beside `spec`: each test file's wall time as it ends ("file 12.3 s
// test/e2e.test.ts"), and the whole table, slowest first, in test-results/test-durations.txt.
// Node's own reporters print no per-file time; it reports each file it ran in a process of its
// own as a top-level test named by the file's path. (Lines only while the run goes on: spec's
// summary stays the run's last lines.)
import { mkdirSync, writeFileSync } from 'node:fs';

interface Event {
  type: string;
  data?: { name?: string; file?: string; nesting?: number; details?: { duration_ms?: number } };
}

export default async function* durations(source: AsyncIterable<Event>): AsyncGenerator<string> {
  const files = new Map<string, number>();
  for await (const event of source) {
    const data = event.data;
    if (event.type !== 'test:complete' || data?.nesting !== 0 || data.name === undefined || !/\.test\.ts$/.test(data.name)) continue;
    if (data.file === undefined || !data.file.endsWith(data.name)) continue;
    const ms = data.details?.duration_ms ?? 0;
    files.set(data.name, ms);
    yield `file ${(ms / 1000).toFixed(1).padStart(6)} s  ${data.name}\n`;
  }
  if (files.size === 0) return;
  const sorted = [...files].sort((a, b) => b[1] - a[1]);
  const total = sorted.reduce((sum, [, ms]) => sum + ms, 0);
  mkdirSync('test-results', { recursive: true });
  writeFileSync(
    'test-results/test-durations.txt',
    `${files.size} files, ${(total / 1000).toFixed(0)} s of file time, ${process.env.ALMONER_TEST_CONCURRENCY ?? '?'} at a time\n${sorted.map(([name, ms]) => `${(ms / 1000).toFixed(1).padStart(7)} s  ${name}`).join('\n')}\n`,
  );
}
