#!/usr/bin/env node
// The `almoner` command. Node 24 runs the TypeScript sources directly.
import { run } from '../src/cli/main.ts';

const code = await run(process.argv.slice(2));
if (code !== 0) process.exitCode = code;
