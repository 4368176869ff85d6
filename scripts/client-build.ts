// Builds packages/client to JavaScript with type declarations (dist/), the form it ships in:
// ES2022 modules that run on Node 18+ and in browsers. Used after install and before tests;
// a production install (no TypeScript) has no use for the client and skips it.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const tsc = `${root}node_modules/typescript/bin/tsc`;

/** True when built; false when TypeScript is not installed. Throws when the build fails. */
export function buildClient(): boolean {
  if (!existsSync(tsc)) return false;
  const result = spawnSync(process.execPath, [tsc, '-p', `${root}packages/client/tsconfig.build.json`], { stdio: 'inherit' });
  if (result.status !== 0) throw new Error(`building packages/client failed (exit ${result.status})`);
  return true;
}
