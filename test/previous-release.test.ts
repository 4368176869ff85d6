// A rolling upgrade: the previous release's node and this one's, side by side on
// one database that this release migrated (ADR 13). Both take donations, each
// lists what the other made, and `almoner check` holds. The previous release is
// checked out from this repository's history and installed with `npm ci`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freshDatabase, runCli, startServerProcess } from './harness.ts';
import { almoner, machinePath, previousRelease, releases, startNode, type Node } from '../scripts/drill/common.ts';
import { VERSION } from '../src/version.ts';

/** The newest release CHANGELOG.md names with its commit that is not this build's version. */
const PREVIOUS_RELEASE = previousRelease(VERSION).commit;

test('the changelog names each release with its commit, newest first; the upgrade rolls from the newest not this one', () => {
  const named = releases();
  assert.ok(named.length >= 2, 'releases 0.1.0 and 0.2.0 at least');
  assert.deepEqual(
    named.map((r) => r.version),
    [...named.map((r) => r.version)].sort((a, b) => b.localeCompare(a, 'en', { numeric: true })),
    'newest first',
  );
  // In a full clone every release's commit is in the history (a shallow one may lack the oldest).
  if (hasCommit(named.at(-1)?.commit ?? '')) for (const r of named) assert.ok(hasCommit(r.commit), `${r.version}'s commit ${r.commit} is in the history`);
  const text = '## Unreleased\n\n## 0.3.0 (2026-12-01, commit abcdef1)\n\n## 0.2.0 (2026-11-27, commit 850adda)\n';
  assert.equal(previousRelease('0.4.0-dev', text).commit, 'abcdef1');
  assert.equal(previousRelease('0.3.0', text).commit, '850adda', 'a build of the newest release rolls from the one before');
  assert.throws(() => previousRelease('0.1.0', '## 0.1.0 (2026-11-23, commit 983e39f)\n'), /names no earlier release/);
});
const ROOT = new URL('..', import.meta.url).pathname;

function hasCommit(commit: string): boolean {
  try {
    execFileSync('git', ['cat-file', '-e', `${commit}^{commit}`], { cwd: ROOT, stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

test(
  `the previous release (${PREVIOUS_RELEASE}) runs beside this one on a database this one migrated`,
  { skip: !hasCommit(PREVIOUS_RELEASE) && `commit ${PREVIOUS_RELEASE} is not in this clone's history (a shallow clone): not tested` },
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'almoner-previous-'));
    const previous = join(dir, 'previous');
    const { databaseUrl, cleanup } = await freshDatabase('sqlite');
    try {
      execFileSync('git', ['worktree', 'add', '--detach', previous, PREVIOUS_RELEASE], { cwd: ROOT, stdio: 'ignore' });
      // That release kept its Node 24 among the development packages: a full install.
      execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: previous, env: { ...process.env, PATH: machinePath(), npm_config_loglevel: 'error' }, stdio: 'ignore' });
      const made = await runCli(['users', 'create', '--name', 'Rolling Donor'], databaseUrl); // this release migrates
      assert.equal(made.code, 0, made.stderr);
      const key = /API key \(shown once\): (\S+)/.exec(made.stdout)?.[1] ?? '';
      const userId = /Created user (\d+)/.exec(made.stdout)?.[1] ?? '';
      assert.equal(
        (
          await runCli(
            ['contributions', 'record', '--user', userId, '--type', 'wire_payment', '--units', '1000', '--valuation', '1', '--currency', 'USD', '--status', 'success'],
            databaseUrl,
          )
        ).code,
        0,
      );
      assert.equal((await runCli(['nonprofits', 'import', join(ROOT, 'src', 'demo', 'nonprofits.csv')], databaseUrl)).code, 0);

      const current = await startServerProcess(databaseUrl);
      let old: Node | undefined;
      try {
        old = await startNode({ DATABASE_URL: databaseUrl, PORT: '0' }, previous);
        const oldBase = old.base;
        const donate = async (base: string) =>
          fetch(`${base}/v1/donations`, {
            method: 'POST',
            headers: { 'x-api-key': key, 'content-type': 'application/json' },
            body: JSON.stringify({ ein: '030219309', amount: 12 }),
          });
        const list = async (base: string) =>
          ((await (await fetch(`${base}/v1/donations`, { headers: { 'x-api-key': key } })).json()) as { items: Array<{ id: number }> }).items.map((d) => d.id);
        const byOld = await donate(oldBase);
        const byNew = await donate(current.base);
        assert.deepEqual([byOld.status, byNew.status], [201, 201]);
        const ids = [((await byOld.json()) as { id: number }).id, ((await byNew.json()) as { id: number }).id];
        for (const base of [oldBase, current.base])
          assert.deepEqual((await list(base)).sort(), [...ids].sort(), `each lists both (${base === oldBase ? 'previous' : 'this'} release)`);
        // The previous release makes a contribution succeed without a receipt (it knows none): what it
        // writes stays valid (ADR 13), as this release issues the missing receipt, once.
        almoner(
          ['contributions', 'record', '--user', userId, '--type', 'wire_payment', '--units', '50', '--valuation', '1', '--currency', 'USD', '--status', 'success'],
          { DATABASE_URL: databaseUrl },
          previous,
        );
        // A release before receipts (0.1.0) leaves it without one, which check finds and repair issues
        // once; a release that knows receipts (0.2.0 on) issues it itself.
        const missing = await runCli(['check'], databaseUrl);
        if (missing.code !== 0) {
          assert.match(missing.stdout + missing.stderr, /original receipt/, 'only a missing receipt is found');
          const repaired = await runCli(['receipts', 'repair'], databaseUrl);
          assert.deepEqual([repaired.code, repaired.stdout.trim()], [0, 'Issued 1 missing receipt.']);
        }
        const again = await runCli(['receipts', 'repair'], databaseUrl);
        assert.deepEqual([again.code, again.stdout.trim()], [0, 'Every succeeded contribution has its receipt.'], 'once');
      } finally {
        current.server.kill('SIGTERM');
        await Promise.all([old?.stop(), current.exited]);
      }
      const check = await runCli(['check'], databaseUrl);
      assert.equal(check.code, 0, check.stdout);
    } finally {
      execFileSync('git', ['worktree', 'remove', '--force', previous], { cwd: ROOT, stdio: 'ignore' });
      rmSync(dir, { recursive: true, force: true });
      await cleanup();
    }
  },
);
