// A production install: `npm ci --omit=dev` of the tracked files, run by the
// machine's npm on whatever Node it has, brings the project's own Node 24 and
// runs the CLI on it; the systemd unit in deploy/ verifies against that install.
// (The Containerfile is not built here: no container engine runs on this machine.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { machinePath } from '../scripts/drill/common.ts';

const ROOT = new URL('..', import.meta.url).pathname;
const run = promisify(execFile);

function has(command: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore', env: { ...process.env, PATH: machinePath() } });
    return true;
  } catch {
    return false;
  }
}

test('npm ci --omit=dev gives a release that runs on its own Node 24; the systemd unit verifies against it', { skip: !has('npm') && 'no npm on this machine' }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'almoner-release-'));
  try {
    const files = execFileSync('git', ['ls-files', 'src', 'bin', 'scripts', 'package.json', 'package-lock.json', '.npmrc', 'deploy'], { cwd: ROOT, encoding: 'utf8' })
      .split('\n')
      .filter((f) => f !== '');
    for (const f of files) {
      mkdirSync(dirname(join(dir, f)), { recursive: true });
      copyFileSync(join(ROOT, f), join(dir, f));
    }
    const env = { ...process.env, PATH: machinePath(), npm_config_loglevel: 'error' };
    await run('npm', ['ci', '--omit=dev', '--no-audit', '--no-fund'], { cwd: dir, env, timeout: 300_000 });
    const node = join(dir, 'node_modules', '.bin', 'node');
    assert.match(execFileSync(node, ['--version'], { encoding: 'utf8' }), /^v24\./);
    // No development package came along.
    for (const dev of ['typescript', 'playwright-core', 'eslint', 'autocannon']) assert.throws(() => readFileSync(join(dir, 'node_modules', dev, 'package.json')), dev);
    const db = `sqlite:${join(dir, 'data', 'almoner.sqlite')}`;
    const migrate = await run(node, ['bin/almoner.js', 'migrate'], { cwd: dir, env: { ...env, DATABASE_URL: db } });
    assert.match(migrate.stdout, /migration|up to date/i);
    const check = await run('npx', ['almoner', 'check'], { cwd: dir, env: { ...env, DATABASE_URL: db } });
    assert.match(check.stdout, /All invariants hold\./);
    if (has('systemd-analyze')) {
      const unit = join(dir, 'almoner-test.service');
      writeFileSync(unit, readFileSync(join(dir, 'deploy', 'almoner.service'), 'utf8').replaceAll('/opt/almoner', dir));
      // The nightly check's service and timer (its last run is a metric) verify too.
      for (const name of ['almoner-check.service', 'almoner-check.timer']) {
        const file = join(dir, name.replace('almoner-', 'almoner-test-'));
        writeFileSync(
          file,
          readFileSync(join(dir, 'deploy', name), 'utf8')
            .replaceAll('/opt/almoner', dir)
            .replaceAll('almoner-check.service', 'almoner-test-check.service'),
        );
        await run('systemd-analyze', ['verify', file], { env });
      }
      const verified = await run('systemd-analyze', ['verify', unit], { env }).then(
        (r) => ({ code: 0, stderr: r.stderr }),
        (e: { code: number; stderr: string }) => ({ code: e.code, stderr: e.stderr }),
      );
      assert.equal(verified.code, 0, verified.stderr);
      assert.equal(verified.stderr.trim(), '');
      // Hardened past MEDIUM: systemd's own rating of the sandbox is OK (under 2.0 of 10 exposure).
      const security = await run('systemd-analyze', ['security', '--offline=true', unit], { env });
      const exposure = /Overall exposure level for .*: (\d+\.\d+) (\w+)/.exec(security.stdout);
      assert.equal(exposure?.[2], 'OK', security.stdout.split('\n').slice(-3).join('\n'));
      assert.ok(Number(exposure?.[1]) < 2, exposure?.[0]);
    } else {
      process.stderr.write('systemd-analyze is not installed: the unit was not verified\n');
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
