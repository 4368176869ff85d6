// Which test files run in which tier (README, "Tests"). Every test file is in exactly one tier:
// `fast` is every file not named below. scripts/test.ts runs a tier; CI runs them all.

/** Servers and CLIs in processes of their own, outages and kills, pool and statement timeouts: slower, and the machine's ports and processes. */
export const SYSTEM: readonly string[] = [
  'src/db/pipelined.test.ts',
  'test/blackhole.test.ts',
  'test/cli-money.test.ts',
  'test/cli-openapi.test.ts',
  'test/client.test.ts',
  'test/container.test.ts',
  'test/db-copy.test.ts',
  'test/demo.test.ts',
  'test/invitations.test.ts',
  'test/io-uring.test.ts',
  'test/join-platform.test.ts',
  'test/listeners.test.ts',
  'test/log-secrets.test.ts',
  'test/login-example.test.ts',
  'test/operators.test.ts',
  'test/outage.test.ts',
  'test/pool.test.ts',
  'test/pooler.test.ts',
  'test/receipts.test.ts',
  'test/shutdown.test.ts',
  'test/start-refusals.test.ts',
  'test/webhook-crash.test.ts',
];

/**
 * What a release must pass: Chromium, a production install, the previous release beside this one,
 * crashes, full-size property and fuzz runs, and search relevance over the whole shipped extract.
 */
export const RELEASE: readonly string[] = [
  'test/charity-relevance.test.ts',
  'test/client-package.test.ts',
  'test/crash.test.ts',
  'test/e2e.test.ts',
  'test/personas.test.ts',
  'test/fuzz.test.ts',
  'test/previous-release.test.ts',
  'test/production.test.ts',
  'test/property.test.ts',
  'test/valuation-crash.test.ts',
];

/**
 * Files of the release tier that the fast tier runs too, smaller: the property test and the fuzzer
 * at these sizes (the release tier runs them at their full size).
 */
export const FAST_SIZES: Readonly<Record<string, Record<string, string>>> = {
  'test/property.test.ts': { PROPERTY_STEPS: '2500' },
  'test/fuzz.test.ts': { FUZZ_RUNS: '100' },
};

/**
 * The files that take longest, longest first, as the runner saw them on the 2-core CI machine
 * (test-results/test-durations.txt): a run starts them first, so that no long file starts last
 * and runs alone while the others are done. A run that has timed every file before (the table
 * is there) orders by it instead; this list is for a fresh clone.
 */
export const LONGEST_FIRST: readonly string[] = [
  'test/auth.test.ts',
  'test/property.test.ts',
  'test/crash.test.ts',
  'test/e2e.test.ts',
  'test/charity-relevance.test.ts',
  'test/operators.test.ts',
  'test/webhook-crash.test.ts',
  'test/directory.test.ts',
  'test/previous-release.test.ts',
  'test/client.test.ts',
  'test/receipts.test.ts',
  'test/web-charity.test.ts',
  'test/fuzz.test.ts',
  'test/cli-openapi.test.ts',
];
