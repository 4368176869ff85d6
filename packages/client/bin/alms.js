#!/usr/bin/env node
// `alms`: the donor's command line (src/cli.ts, built to dist/). It runs on the Node the user
// has (18 and later). Where Node has a compile cache (22.1+), it keeps the compiled sources
// between runs, so each command starts in a fraction of the time.
import * as nodeModule from 'node:module';

nodeModule.enableCompileCache?.();
const { alms, processIo } = await import('../dist/cli.js');
process.exitCode = await alms(process.argv.slice(2), processIo());
