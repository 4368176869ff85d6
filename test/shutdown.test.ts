// Graceful shutdown: on SIGTERM a node reports not ready, keeps serving
// through the grace period, then finishes what is in flight and exits 0.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli, startServerProcess } from './harness.ts';

/** A fresh SQLite file with one user made by the CLI, and that user's key; removed afterwards. */
async function withFreshDatabase(name: string, run: (url: string, key: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'almoner-shutdown-'));
  const url = `sqlite:${join(dir, 'db.sqlite')}`;
  try {
    const created = await runCli(['users', 'create', '--name', name], url);
    const key = /(alm_live_[0-9A-Za-z]{40})/.exec(created.stdout)?.[1];
    assert.ok(key, created.stderr);
    await run(url, key);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('SIGTERM drops no request: not ready first, then in-flight requests finish, then exit 0', async () => {
  await withFreshDatabase('Shutdown Tester', async (url, key) => {
    const { server, base, exited } = await startServerProcess(url, { SHUTDOWN_GRACE_MS: '400' });
    const get = (path: string) =>
      fetch(`${base}${path}`, { headers: { 'x-api-key': key } }).then(
        (r) => r.status,
        () => 0,
      );

    const before = await Promise.all(Array.from({ length: 50 }, () => get('/v1/users/me')));
    assert.deepEqual([...new Set(before)], [200]);
    const inFlight = Array.from({ length: 50 }, () => get('/v1/users/me'));
    server.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(await get('/readyz'), 503, 'not ready while draining');
    assert.equal(await get('/v1/users/me'), 200, 'still serving during the grace period');
    assert.deepEqual([...new Set(await Promise.all(inFlight))], [200], 'no request dropped');
    assert.equal(await exited, 0);
  });
});

test('serve --workers 2: two processes share one port; a dead worker is replaced; SIGTERM stops them all', async () => {
  await withFreshDatabase('Worker Tester', async (url, key) => {
    const primary = spawn(process.execPath, [new URL('../bin/almoner.js', import.meta.url).pathname, 'serve', '--workers', '2'], {
      env: { ...process.env, DATABASE_URL: url, PORT: '0', SHUTDOWN_GRACE_MS: '100', SCHEDULER_INTERVAL_MS: '0', SANDBOX_TICK_MS: '0', LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    primary.stdout.on('data', (c: Buffer) => {
      out += c.toString();
    });
    const exited = new Promise<number | null>((resolve) => primary.on('exit', resolve));
    const listening = () => [...out.matchAll(/"pid":(\d+)[^\n]*Server listening at (http:\/\/127\.0\.0\.1:\d+)/g)];
    // Each worker opens the platform before it listens: on a busy machine that takes seconds.
    const waitFor = async (n: number) => {
      for (let i = 0; i < 600 && listening().length < n; i++) await new Promise((r) => setTimeout(r, 100));
      assert.ok(listening().length >= n, out);
    };
    try {
      await waitFor(2);
      const [first, second] = listening();
      assert.equal(first?.[2], second?.[2], 'both workers listen on one port');
      assert.notEqual(first?.[1], second?.[1], 'two processes');
      const base = first?.[2] as string;
      const get = () => fetch(`${base}/v1/users/me`, { headers: { 'x-api-key': key } }).then((r) => r.status);
      assert.deepEqual([...new Set(await Promise.all(Array.from({ length: 40 }, get)))], [200]);
      process.kill(Number(first?.[1]), 'SIGKILL');
      await waitFor(3);
      assert.match(out, /worker died; starting another/);
      assert.deepEqual([...new Set(await Promise.all(Array.from({ length: 40 }, get)))], [200]);
      primary.kill('SIGTERM');
      assert.equal(await exited, 0);
    } finally {
      // A failed assertion must not leave the primary and its workers running (the test file would never end).
      if (primary.exitCode === null && primary.signalCode === null) {
        for (const [, pid] of listening()) {
          try {
            process.kill(Number(pid), 'SIGKILL');
          } catch {
            // gone already
          }
        }
        primary.kill('SIGKILL');
        await exited;
      }
    }
  });
});
