// BENCH_PERF=<dir>: the whole machine's CPU, every process and the kernel, sampled by Linux's
// `perf record` over a measured window (each arm of the ledger's pairs), so that what the
// database spends beside the app server can be read function by function, as BENCH_CPU_PROF
// reads the server's own JavaScript. Sampled by the CPU clock (a virtual machine has no cycle
// counter). `perf report -i <file> --sort comm,dso,sym` reads a file; each file's name says its
// arm and the log its requests, to divide by.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';

/** Starts sampling when BENCH_PERF is set (resolves once perf runs); the returned function stops it and resolves to the file written. */
export async function perfRecord(label: string): Promise<() => Promise<string | undefined>> {
  const dir = process.env.BENCH_PERF;
  if (dir === undefined || dir === '') return async () => undefined;
  const file = join(
    dir,
    `${label
      .replace(/[^a-z0-9]+/gi, '-')
      .replace(/^-|-$/g, '')
      .toLowerCase()}-${Date.now()}.data`,
  );
  const child: ChildProcess = spawn('perf', ['record', '-a', '-e', 'cpu-clock', '-F', '999', '-q', '-o', file], { stdio: ['ignore', 'ignore', 'inherit'] });
  await Promise.race([
    new Promise((resolve) => setTimeout(resolve, 300)), // perf has opened its events by then
    once(child, 'exit').then(([code]) => {
      throw new Error(`perf record exited (${String(code)}): is linux-perf installed, and may this user sample the machine?`);
    }),
  ]);
  return async () => {
    const exited = once(child, 'exit');
    child.kill('SIGINT');
    await exited;
    return file;
  };
}
