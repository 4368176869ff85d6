// The release this is: package.json's version, read once. Shown by `almoner --version`, on the
// first log line of a node, and as the almoner_build_info metric.
import { readFileSync } from 'node:fs';

export const VERSION: string = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
