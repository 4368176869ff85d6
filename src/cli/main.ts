// `almoner <command>`: thin adapters over the service functions; no SQL here. The commands are a
// table (commands.ts), each loaded when it is given.
import { AppError } from '../shared/errors.ts';
import { UsageError } from './common.ts';
import { COMMANDS } from './commands.ts';
import { VERSION } from '../version.ts';
import { USAGE, usageOf } from './usage.ts';

export async function run(argv: string[]): Promise<number> {
  const [command, sub, ...rest] = argv;
  // `almoner users list | head`: once the reader has gone, stop quietly as Unix tools do, not with an EPIPE stack.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit(0);
  });
  if (command === '--version' || command === 'version') {
    process.stdout.write(`almoner ${VERSION} (Node ${process.versions.node})\n`);
    return 0;
  }
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    process.stdout.write(USAGE);
    return 0;
  }
  try {
    const given = Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
    if (given === undefined) throw new UsageError(`unknown command: ${command}`);
    return await given(sub, rest);
  } catch (error) {
    return reported(error, command);
  }
}

/**
 * What a command that failed prints, and its exit code: 2 for a wrong use (one line, and where its
 * usage is), 1 for anything else.
 */
function reported(error: unknown, command: string | undefined): number {
  if (error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
    const known = command !== undefined && usageOf(command) !== undefined;
    process.stderr.write(`almoner: ${(error as Error).message} (${known ? `almoner ${command} --help` : 'almoner --help'} shows the usage)\n`);
    return 2;
  }
  if (error instanceof AppError) {
    const fields = error.errors?.map((e) => `\n  ${e.field}: ${e.message}`).join('') ?? '';
    process.stderr.write(`almoner: ${error.message} (${error.code})${fields}\n`);
    return 1;
  }
  process.stderr.write(`almoner: ${(error as Error).message}\n`);
  return 1;
}

if (import.meta.main) {
  const code = await run(process.argv.slice(2));
  if (code !== 0) process.exit(code);
}
