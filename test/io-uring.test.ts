// A serving process hands its file syncs to io_uring (src/io-uring.ts, ADR 35): `almoner serve`
// starts again as the same process with UV_USE_IO_URING=1, unless the environment already says.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { canStartAgain, wantsIoUring } from '../src/io-uring.ts';
import { startServerProcess } from './harness.ts';

describe('which processes start again with io_uring', () => {
  test('Linux, Node able to exec, the variable unset: yes', () => {
    assert.equal(wantsIoUring('linux', {}, true), true);
  });
  test('the operator already decided (1 or 0): no', () => {
    assert.equal(wantsIoUring('linux', { UV_USE_IO_URING: '0' }, true), false);
    assert.equal(wantsIoUring('linux', { UV_USE_IO_URING: '1' }, true), false);
    assert.equal(wantsIoUring('linux', { UV_USE_IO_URING: '' }, true), false);
  });
  test('a process with an IPC channel to its parent (a cluster worker, a forked child): no, the exec would close it', () => {
    assert.equal(wantsIoUring('linux', { NODE_CHANNEL_FD: '3' }, true), false);
  });
  test('another system, or a Node without process.execve: no', () => {
    assert.equal(wantsIoUring('darwin', {}, true), false);
    assert.equal(wantsIoUring('win32', {}, true), false);
    assert.equal(wantsIoUring('linux', {}, false), false);
  });
});

describe('whether the system would let the process start again', () => {
  test('this Node: yes', () => {
    assert.equal(canStartAgain(process.execPath), true);
  });
  test('a binary that is not there (gone since the start): no, so the node serves as it started instead of aborting', () => {
    assert.equal(canStartAgain(join(tmpdir(), 'almoner-no-such-node')), false);
  });
});

/** The variable as the process `pid` has it in its environment (libuv read it there when the process started). */
function variableOf(pid: number): string | undefined {
  const environ = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
  return environ.find((e) => e.startsWith('UV_USE_IO_URING='))?.slice('UV_USE_IO_URING='.length);
}

describe('almoner serve', { skip: process.platform === 'linux' ? false : 'io_uring is Linux only' }, () => {
  async function served(env: Record<string, string>, check: (pid: number) => void | Promise<void>): Promise<void> {
    const dir = mkdtempSync(join(tmpdir(), 'almoner-io-uring-'));
    const saved = process.env.UV_USE_IO_URING;
    // The server inherits this process's environment: the variable set here only as the case says.
    delete process.env.UV_USE_IO_URING;
    try {
      const { server, base, exited } = await startServerProcess(`sqlite:${join(dir, 'db.sqlite')}`, env);
      try {
        assert.equal((await fetch(`${base}/healthz`)).status, 200);
        await check(server.pid as number);
      } finally {
        server.kill('SIGTERM');
        assert.equal(await exited, 0, 'the node stops cleanly');
      }
    } finally {
      if (saved !== undefined) process.env.UV_USE_IO_URING = saved;
      rmSync(dir, { recursive: true, force: true });
    }
  }

  test('starts again as the same process, with io_uring on for its file syncs', async () => {
    // The process spawned is the one that listens (an exec, not a child): signals and PIDs hold.
    await served({ SHUTDOWN_GRACE_MS: '0' }, (pid) => assert.equal(variableOf(pid), '1'));
  });

  test('UV_USE_IO_URING=0 keeps the thread pool: the process is not started again', async () => {
    await served({ UV_USE_IO_URING: '0', SHUTDOWN_GRACE_MS: '0' }, (pid) => assert.equal(variableOf(pid), '0'));
  });
});
