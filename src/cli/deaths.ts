// `almoner deaths` (docs/rules.md §20): a fund holder's death recorded by one
// operator (ALMONER_OPERATOR names them), approved by a second; the fund's
// successor plan runs then.
import { parseArgs } from 'node:util';
import { approveDeath, listDeaths, recordDeath } from '../modules/succession/index.ts';
import { UsageError, actor, id, withPlatform } from './common.ts';
import { dollarsText } from '../shared/money.ts';

export async function deathsCommand(sub: string | undefined, rest: string[]): Promise<number> {
  switch (sub) {
    case 'list': {
      const { values } = parseArgs({ args: rest, strict: true, options: { status: { type: 'string' } } });
      if (values.status !== undefined && values.status !== 'recorded' && values.status !== 'approved') throw new UsageError('--status is recorded or approved');
      return await withPlatform(async ({ deps }) => {
        const deaths = await listDeaths(deps, values.status as 'recorded' | 'approved' | undefined);
        if (deaths.length === 0) process.stdout.write('No death recorded.\n');
        for (const d of deaths)
          process.stdout.write(
            `${d.id}  user ${d.user_id} (fund ${d.fund_id})  ${d.status}  recorded by ${d.recorded_by} at ${d.recorded_at}  document: ${d.document_reference}${d.approved_by === null ? '' : `  approved by ${d.approved_by} at ${d.approved_at}`}\n`,
          );
        return 0;
      });
    }
    case 'record': {
      const { values } = parseArgs({ args: rest, strict: true, options: { user: { type: 'string' }, document: { type: 'string' } } });
      if (values.user === undefined || values.document === undefined) throw new UsageError('deaths record --user ID --document REFERENCE');
      const userId = id(values.user, '--user');
      return await withPlatform(async ({ deps }) => {
        const d = await recordDeath(deps, userId, values.document as string, actor());
        process.stdout.write(`Death ${d.id} of user ${d.user_id} recorded. Nothing happens until a second operator runs: almoner deaths approve ${d.id}\n`);
        return 0;
      });
    }
    case 'approve': {
      const { positionals } = parseArgs({ args: rest, strict: true, allowPositionals: true, options: {} });
      if (positionals.length !== 1) throw new UsageError('deaths approve ID');
      const deathId = id(positionals[0], 'ID');
      return await withPlatform(async ({ deps }) => {
        const d = await approveDeath(deps, deathId, actor());
        process.stdout.write(
          `Death ${d.id} approved; the successor plan ran: ${d.organizers.length} organizer(s) (${d.organizers.map((o) => o.email).join(', ') || 'none'}), ${d.grants.length} grant(s) held (${d.grants.map((g) => `${g.ein} $${dollarsText(g.amount_cents)}`).join(', ') || 'none'}).\n`,
        );
        return 0;
      });
    }
    default:
      throw new UsageError(`unknown deaths command: ${sub ?? '(none)'} (list, record, approve)`);
  }
}
