#!/usr/bin/env node
// The `almoner` command. Node 24 runs the TypeScript sources directly. Asking for the version or
// the usage loads nothing else: the whole program takes a second or more to load.
import * as nodeModule from 'node:module';

// Node's compile cache keeps the compiled sources between runs (in the system's temporary folder):
// each command after the first compiles nothing again (users list: 2.1 s to 1.6 s on the CI machine).
nodeModule.enableCompileCache?.();
const argv = process.argv.slice(2);
const [command, ...rest] = argv;
if (command === '--version' || command === 'version' || command === '-v') {
  const { VERSION } = await import('../src/version.ts');
  process.stdout.write(`almoner ${VERSION} (Node ${process.versions.node})\n`);
} else if (command === undefined || command === '--help' || command === 'help' || command === '-h') {
  const { USAGE } = await import('../src/cli/usage.ts');
  process.stdout.write(USAGE);
} else if (rest.includes('--help') || rest.includes('-h')) {
  const { USAGE, usageOf } = await import('../src/cli/usage.ts');
  const own = usageOf(command);
  process.stdout.write(own ?? `almoner: unknown command: ${command}\n\n${USAGE}`);
  if (own === undefined) process.exitCode = 2;
} else {
  // A serving process starts again, as the same process, with the kernel's io_uring for its file
  // syncs (src/io-uring.ts, ADR 35); before anything else is loaded, so the start costs little.
  if (command === 'serve' || command === 'demo') (await import('../src/io-uring.ts')).startWithIoUring();
  const { run } = await import('../src/cli/main.ts');
  const code = await run(argv);
  if (code !== 0) process.exitCode = code;
}
