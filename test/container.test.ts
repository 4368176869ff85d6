// The container image's own parts, run here without a container engine: its start script with a
// secret in a file (DATABASE_URL_FILE) and with no database named (SQLite in the volume), and its
// health check, which asks for liveness (/healthz), never the database.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const ROOT = new URL('..', import.meta.url).pathname;
const CONTAINERFILE = readFileSync(join(ROOT, 'deploy', 'Containerfile'), 'utf8');

/** An instruction's JSON form (`CMD [...]`, `HEALTHCHECK ... CMD [...]`), as the image runs it. */
function execForm(instruction: RegExp): string[] {
  const line = instruction.exec(CONTAINERFILE)?.[1];
  assert.ok(line !== undefined, `the Containerfile has ${instruction}`);
  return JSON.parse(line) as string[];
}

/** What a production node needs to tell donors where to send money (docs/configuration.md). */
const SPONSOR = {
  SPONSOR_NAME: 'Green Valley Giving Fund',
  SPONSOR_EIN: '12-3456789',
  SPONSOR_ADDRESS: '1 Main St, Burlington VT 05401',
  SPONSOR_BANK: 'First Bank, routing 021000021, account 123456789',
  SPONSOR_BROKERAGE: 'Broker Co, DTC 0000, account 42',
  SPONSOR_CRYPTO: 'BTC bc1qexample',
};

async function startContainerCommand(env: Record<string, string>): Promise<{ port: number; stop: () => Promise<void> }> {
  const [command, ...args] = execForm(/^CMD (\[.*\])$/m);
  const child = spawn(join(ROOT, command as string), args, {
    cwd: ROOT,
    // What the image's ENV sets, and no DATABASE_URL from the machine running the tests.
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: '0', ALMONER_ENV: 'production', SCHEDULER_INTERVAL_MS: '0', SANDBOX_TICK_MS: '0', ...SPONSOR, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /Server listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    void exited.then((code) => reject(new Error(`exited ${code} before listening: ${err}${out.slice(-500)}`)));
  });
  return {
    port,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

test('the image starts with DATABASE_URL_FILE (no conflict with a default), and its health check asks for liveness', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'almoner-image-'));
  try {
    const secret = join(dir, 'database_url');
    writeFileSync(secret, `sqlite:${join(dir, 'from-secret.sqlite')}\n`);
    const node = await startContainerCommand({ DATABASE_URL_FILE: secret, SHUTDOWN_GRACE_MS: '0' });
    try {
      assert.ok(existsSync(join(dir, 'from-secret.sqlite')), 'the database the secret names');
      const [command, ...args] = execForm(/^HEALTHCHECK .*CMD (\[.*\])$/m);
      assert.match(args.join(' '), /\/healthz/, 'liveness, not /readyz');
      const healthy = await promisify(execFile)(join(ROOT, command as string), args, { cwd: ROOT, env: { ...process.env, PORT: String(node.port) } }).then(
        () => 0,
        (e: { code: number }) => e.code,
      );
      assert.equal(healthy, 0);
    } finally {
      await node.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the image with no database named uses SQLite in its volume', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'almoner-image-'));
  try {
    const node = await startContainerCommand({ ALMONER_DATA_DIR: dir, SHUTDOWN_GRACE_MS: '0' });
    try {
      assert.ok(existsSync(join(dir, 'almoner.sqlite')));
      assert.equal((await fetch(`http://127.0.0.1:${node.port}/readyz`)).status, 200);
    } finally {
      await node.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
