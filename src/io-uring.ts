// How a serving process hands its file syncs to the kernel (ADR 35). After every group commit the
// SQLite driver syncs the WAL off the event loop (db/sqlite-group-commit.ts). libuv does that on its
// thread pool unless io_uring is on, and Node 24 leaves it off unless UV_USE_IO_URING=1 is in the
// environment when the process starts. Handing a sync to a pool thread wakes that thread, which
// cost the event loop about 30 us a sync on the 2-core machine; through io_uring, about 4 us. So
// `almoner serve` and `almoner demo` start again, as the same process, with io_uring on, unless
// the environment already says (UV_USE_IO_URING=0 keeps the thread pool).
// Where the kernel or a seccomp filter refuses io_uring, libuv falls back to its thread pool.

import { spawnSync } from 'node:child_process';

/** The variable libuv reads once, at start, to use io_uring for file operations. */
export const IO_URING_VARIABLE = 'UV_USE_IO_URING';

/**
 * Whether this process should start again with io_uring on: Linux, Node able to, the variable
 * unset, and no IPC channel to its parent (a cluster's worker, a forked child), which an exec
 * would close.
 */
export function wantsIoUring(platform: string, env: NodeJS.ProcessEnv, canExec: boolean): boolean {
  return platform === 'linux' && canExec && env[IO_URING_VARIABLE] === undefined && env.NODE_CHANNEL_FD === undefined;
}

/**
 * Whether the system lets this process run `execPath` again. Node 24 ends a process whose
 * `process.execve` fails (it aborts, exit 134) instead of throwing, so the exec is first tried in
 * a child (`node --version`, some 20 ms): a seccomp filter that refuses execve, or a binary gone
 * since the start, leaves the node serving as it started instead of stopping it.
 */
export function canStartAgain(execPath: string): boolean {
  const probe = spawnSync(execPath, ['--version'], { stdio: 'ignore', timeout: 10_000 });
  return probe.error === undefined && probe.status === 0;
}

/**
 * Replaces this process (same PID, arguments and Node flags) with one that has io_uring on, when
 * `wantsIoUring`. Returns only when it did not: nothing to do, or the system would refuse the exec.
 */
export function startWithIoUring(): void {
  if (!wantsIoUring(process.platform, process.env, typeof process.execve === 'function')) return;
  if (!canStartAgain(process.execPath)) return;
  // process.execve is experimental in Node 24: its one warning would be the only line an operator
  // reads at every start, about our code, not theirs.
  const listeners = process.listeners('warning');
  process.removeAllListeners('warning');
  try {
    process.execve?.(process.execPath, [process.execPath, ...process.execArgv, ...process.argv.slice(1)], { ...process.env, [IO_URING_VARIABLE]: '1' });
  } catch {
    // The exec was refused: this process serves as it started, with the thread pool.
  } finally {
    for (const listener of listeners) process.on('warning', listener);
  }
}
