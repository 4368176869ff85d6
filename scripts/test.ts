// `npm test` and its tiers: node:test over the tier's files, several files at once (one process
// each), with spec's output, its closing summary, and each file's wall time.
//   node scripts/test.ts [fast|system|release|all] [--repeat N] [FILES...]
// --repeat N: the same run N times in a row, stopping at the first that fails (a flaky file
// shows itself; each round prints its number).
// fast (the default, `npm test`): units and in-process API tests on both engines.
// system: spawned servers and CLIs, outages, kills. release: Chromium, a production install, the
// previous release, crashes, full-size property and fuzz runs. all: every file once (CI).
import { spawnSync } from 'node:child_process';
import { globSync, readFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { FAST_SIZES, LONGEST_FIRST, RELEASE, SYSTEM } from '../test/tiers.ts';
import { buildClient } from './client-build.ts';

const USAGE = 'usage: node scripts/test.ts [fast|system|release|all] [--repeat N] [FILES...]';
const args = process.argv.slice(2);
const repeatAt = args.indexOf('--repeat');
const rounds = repeatAt === -1 ? 1 : Number(args[repeatAt + 1]);
if (repeatAt !== -1) args.splice(repeatAt, 2);
const [tier = 'fast', ...only] = args;
if (!['fast', 'system', 'release', 'all'].includes(tier) || !Number.isSafeInteger(rounds) || rounds < 1) {
  process.stderr.write(`${USAGE}; not ${process.argv.slice(2).join(' ')}\n`);
  process.exit(2);
}

const every = [...globSync('src/**/*.test.ts'), ...globSync('test/**/*.test.ts')].sort();
const named = new Set([...SYSTEM, ...RELEASE]);
for (const file of named) if (!every.includes(file)) throw new Error(`test/tiers.ts names ${file}, which is no test file`);
const fast = [...every.filter((f) => !named.has(f)), ...Object.keys(FAST_SIZES)];
const chosen = only.length > 0 ? only : { fast, system: [...SYSTEM], release: [...RELEASE], all: every }[tier as 'fast'];
const files = longestFirst(chosen);

// Smaller runs of the release tier's generative tests in the fast tier (unless asked otherwise).
const sizes: Record<string, string> = {};
if (tier === 'fast') for (const size of Object.values(FAST_SIZES)) for (const [name, value] of Object.entries(size)) sizes[name] = process.env[name] ?? value;

// The client's tests and `alms` run its built form (packages/client/dist), as its users do.
buildClient();

const concurrency = process.env.TEST_CONCURRENCY ?? String(Math.max(1, Math.min(4, availableParallelism())));
if (!process.env.TEST_DATABASE_URL) process.stderr.write('\n*** TEST_DATABASE_URL is not set: PostgreSQL tests are SKIPPED; only SQLite runs. ***\n\n');
process.stdout.write(`${tier} tier: ${files.length} files, ${concurrency} at a time\n`);

for (let round = 1; round <= rounds; round++) {
  if (rounds > 1) process.stdout.write(`round ${round} of ${rounds}\n`);
  const status = runOnce();
  if (status !== 0) {
    if (rounds > 1) process.stdout.write(`round ${round} of ${rounds} failed\n`);
    process.exit(status);
  }
}
if (rounds > 1) process.stdout.write(`${rounds} rounds in a row passed\n`);

/** One run of the chosen files; the runner's exit status. */
function runOnce(): number {
  const result = spawnSync(
    process.execPath,
    [
      // The test runner's promise tracking off in each file's process (test/untracked-promises.ts).
      ...(process.env.ALMONER_TEST_TRACK_ASYNC === '1' ? [] : ['--import', './test/untracked-promises.ts']),
      '--test',
      `--test-concurrency=${concurrency}`,
      // The durations first, so that spec's summary stays the run's last lines (what CI reads).
      '--test-reporter=./test/durations.reporter.ts',
      '--test-reporter-destination=stdout',
      '--test-reporter=spec',
      '--test-reporter-destination=stdout',
      ...files,
    ],
    // The banner above is said once; each file's harness stays quiet about it. Node's compile cache
    // (the one bin/almoner.js uses) for every file's process too: each loads the whole program, and
    // compiles it again without it (~0.9 s of CPU a file; ~0.45 s with it).
    {
      stdio: 'inherit',
      env: {
        ...process.env,
        ...sizes,
        ALMONER_TEST_CONCURRENCY: concurrency,
        ALMONER_TEST_BANNER: 'said',
        NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE ?? join(tmpdir(), 'node-compile-cache'),
      },
    },
  );
  return result.status ?? 1;
}

/**
 * The files in the order they start: longest first (the last run's times, in
 * test-results/test-durations.txt, else test/tiers.ts's LONGEST_FIRST), the rest as given. A long
 * file that started last would run alone at the end while the other workers wait.
 */
function longestFirst(files: readonly string[]): string[] {
  const seconds = new Map<string, number>();
  try {
    for (const line of readFileSync('test-results/test-durations.txt', 'utf8').split('\n').slice(1)) {
      const m = /^\s*([\d.]+) s {2}(\S+)$/.exec(line);
      if (m !== null) seconds.set(m[2] as string, Number(m[1]));
    }
  } catch {
    // No run on this machine yet.
  }
  // A table of a few files (a run of some) says little of the others: then the checked-in list.
  if (files.filter((f) => seconds.has(f)).length < files.length / 2) {
    seconds.clear();
    LONGEST_FIRST.forEach((f, i) => seconds.set(f, LONGEST_FIRST.length - i));
  }
  return [...files].sort((a, b) => (seconds.get(b) ?? 0) - (seconds.get(a) ?? 0));
}
