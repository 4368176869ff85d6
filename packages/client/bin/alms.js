#!/usr/bin/env node
// `alms`: the donor's command line (packages/client/src/cli.ts). Node's compile cache keeps
// the compiled sources between runs, so each command starts in a fraction of the time.
import { enableCompileCache } from 'node:module';

enableCompileCache?.();
const { alms, processIo } = await import('../src/cli.ts');
process.exitCode = await alms(process.argv.slice(2), processIo());
