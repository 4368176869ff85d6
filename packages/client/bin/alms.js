#!/usr/bin/env node
// `alms`: the donor's command line (packages/client/src/cli.ts).
import { alms, processIo } from '../src/cli.ts';

process.exitCode = await alms(process.argv.slice(2), processIo());
