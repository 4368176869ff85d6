// `almoner nonprofits`: the directory and the sponsor's due diligence
// (docs/rules.md §16): IRS files and the lists imported, the directory screened
// against the lists, and the close name matches an operator decides.
import { parseArgs } from 'node:util';
import { bmfFiles, importBmf, type ImportProgress } from '../modules/nonprofits/index.ts';
import { decideReview, downloadAll, pendingReviews, readListFile, recordList, screenDirectory, type ListFile, type ListKind, type Screening } from '../modules/diligence/index.ts';
import { UsageError, actor, countProgress, id, withPlatform } from './common.ts';
import { bankDetails } from './payments.ts';
import { decideClaim, listClaims } from '../modules/charities/index.ts';
import { isCalendarDay } from '../shared/days.ts';

const CLAIM_STATUSES = ['unconfirmed', 'pending', 'approved', 'rejected'] as const;

/** `nonprofits claims [--status S]`: claims to act for an organisation, by default those waiting for a decision. */
async function claims(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, strict: true, options: { status: { type: 'string', default: 'pending' } } });
  const status = CLAIM_STATUSES.find((s) => s === values.status);
  if (status === undefined) throw new UsageError(`--status is one of ${CLAIM_STATUSES.join(', ')}`);
  return await withPlatform(async ({ deps }) => {
    const found = await listClaims(deps, status);
    if (found.length === 0) process.stdout.write(status === 'pending' ? 'No claim waits for a decision.\n' : `No ${status} claim.\n`);
    for (const c of found) {
      const site = c.website_on_file ? `${c.domain} (the directory's website)` : `${c.domain} (given by the claimant: the directory has no website; check it)`;
      process.stdout.write(`${c.id}  EIN ${c.ein}  ${c.non_profit}\n    ${c.person.name} (user ${c.person.user_id}) <${c.email}> at ${site}; asked ${c.created_at}\n`);
    }
    return 0;
  });
}

/** `nonprofits claim ID --approve|--reject --note TEXT`. */
async function claim(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    strict: true,
    options: { approve: { type: 'boolean' }, reject: { type: 'boolean' }, note: { type: 'string' } },
  });
  if (positionals.length !== 1) throw new UsageError('give the claim ID (almoner nonprofits claims lists them)');
  if (values.approve === values.reject) throw new UsageError('give --approve (the person acts for the organisation) or --reject, one of them');
  const note = values.note?.trim() ?? '';
  if (note === '' || note.length > 500) throw new UsageError('--note says why (1 to 500 characters): it goes in the audit log');
  const claimId = id(positionals[0], 'ID');
  return await withPlatform(async ({ deps }) => {
    const decided = await decideClaim(deps, claimId, values.approve === true ? 'approved' : 'rejected', note, actor());
    process.stdout.write(`Claim ${claimId} ${decided?.status}: ${decided?.person.name} for ${decided?.non_profit} (EIN ${decided?.ein}); they are told by e-mail.\n`);
    return 0;
  });
}

export async function nonprofitsCommand(sub: string | undefined, rest: string[]): Promise<number> {
  switch (sub) {
    case 'import':
      return await importNonProfits(rest);
    case 'screen':
      parseArgs({ args: rest, strict: true, options: {} });
      return await withPlatform(async ({ deps }) => report(await screenDirectory(deps, screeningProgress())), { whole: true });
    case 'reviews':
      parseArgs({ args: rest, strict: true, options: {} });
      return await withPlatform(async ({ deps }) => {
        const reviews = await pendingReviews(deps);
        if (reviews.length === 0) process.stdout.write('No close matches wait for a decision.\n');
        for (const r of reviews) process.stdout.write(`${r.id}  EIN ${r.ein}  ${r.name}\n    resembles ${JSON.stringify(r.listed_name)} on the sanctions list: ${r.reason}\n`);
        return 0;
      });
    case 'review':
      return await review(rest);
    case 'claims':
      return await claims(rest);
    case 'claim':
      return await claim(rest);
    case 'bank-details':
      return await bankDetails(rest);
    case 'download':
      return await download(rest);
    default:
      throw new UsageError(`unknown nonprofits command: ${sub ?? '(none)'}`);
  }
}

function progressPrinter(): (p: ImportProgress) => void {
  const started = Date.now();
  const tty = process.stderr.isTTY === true;
  let lastLine = 0;
  return (p) => {
    const now = Date.now();
    if (!tty && now - lastLine < 5000) return;
    lastLine = now;
    const seconds = (now - started) / 1000;
    const fraction = p.bytes_total > 0 ? Math.min(1, p.bytes_done / p.bytes_total) : 0;
    const rate = p.rows / Math.max(seconds, 0.001);
    const eta = fraction > 0 ? Math.round(seconds / fraction - seconds) : 0;
    const width = 30;
    const bar = `[${'='.repeat(Math.round(fraction * width)).padEnd(width)}]`;
    const text = `${bar} ${(fraction * 100).toFixed(0).padStart(3)}%  ${p.rows.toLocaleString('en-US')} rows  ${Math.round(rate).toLocaleString('en-US')} rows/s  ETA ${Math.floor(eta / 60)}:${String(eta % 60).padStart(2, '0')}  ${p.file}`;
    process.stderr.write(tty ? `\r${text}` : `${text}\n`);
  };
}

/** `nonprofits download [--to DIR] [--mirror URL]`: the IRS files and the lists from their official addresses (or a mirror of them). */
async function download(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, strict: true, options: { to: { type: 'string', default: './data/irs' }, mirror: { type: 'string' } } });
  const mirror = values.mirror;
  if (mirror !== undefined && !/^https?:\/\/[^/\s]+\/?$/.test(mirror))
    throw new UsageError('--mirror is a site (http[s]://host[:port]) that serves the same paths as the official addresses');
  const rewrite = mirror === undefined ? undefined : (url: string) => `${mirror.replace(/\/$/, '')}${new URL(url).pathname}`;
  const dir = values.to;
  const written = await downloadAll(dir, {
    ...(rewrite === undefined ? {} : { rewrite }),
    onFile: (d, bytes) => process.stderr.write(`downloaded the ${d.what}: ${bytes.toLocaleString('en-US')} bytes\n`),
  });
  const at = (name: string) => written.find((w) => w.file.endsWith(name))?.file ?? name;
  process.stdout.write(
    `Downloaded ${written.length} files into ${dir}. Import them with:\n  almoner nonprofits import ${dir}/bmf --revocations ${at('revocations.txt')} --pub78 ${at('pub78.txt')} --sdn ${at('sdn.csv')} --as-of ${new Date().toISOString().slice(0, 10)}\n`,
  );
  return 0;
}

function screeningProgress(): (screened: number) => void {
  return countProgress((n) => `screened ${n} organisations...`);
}

function report(s: Screening): number {
  const changed = Object.entries(s.changed).map(([finding, n]) => `${n} now ${finding}`);
  process.stdout.write(
    `Screened ${s.screened.toLocaleString('en-US')} organisations against the lists: ${changed.length === 0 ? 'no finding changed' : changed.join(', ')}; ${s.new_reviews} new close match${s.new_reviews === 1 ? '' : 'es'} to review (almoner nonprofits reviews).\n`,
  );
  return 0;
}

async function review(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    strict: true,
    options: { clear: { type: 'boolean' }, confirm: { type: 'boolean' }, note: { type: 'string' } },
  });
  if (positionals.length !== 1) throw new UsageError('give the review ID (almoner nonprofits reviews lists them)');
  if (values.clear === values.confirm) throw new UsageError('give --clear (not the listed party) or --confirm (it is), one of them');
  const note = values.note?.trim() ?? '';
  if (note === '' || note.length > 500) throw new UsageError('--note says why (1 to 500 characters): it goes in the audit log');
  const reviewId = id(positionals[0], 'ID');
  return await withPlatform(async ({ deps }) => report(await decideReview(deps, reviewId, values.clear === true ? 'cleared' : 'confirmed', note, actor())), { whole: true });
}

const LIST_OPTIONS: ReadonlyArray<[ListKind, 'revocations' | 'pub78' | 'sdn']> = [
  ['revocations', 'revocations'],
  ['pub78', 'pub78'],
  ['sdn', 'sdn'],
];

async function importNonProfits(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    strict: true,
    options: { zips: { type: 'string' }, revocations: { type: 'string' }, pub78: { type: 'string' }, sdn: { type: 'string' }, 'as-of': { type: 'string' } },
  });
  const listPaths = LIST_OPTIONS.flatMap(([kind, option]) => (values[option] === undefined ? [] : [{ kind, path: values[option] as string }]));
  if (positionals.length === 0 && listPaths.length === 0) throw new UsageError('give BMF files or folders, or a list (--revocations, --pub78, --sdn)');
  const asOf = values['as-of'] ?? new Date().toISOString().slice(0, 10);
  if (!isCalendarDay(asOf)) throw new UsageError(`--as-of is the lists' date, YYYY-MM-DD; got ${JSON.stringify(asOf)}`);
  if (values['as-of'] !== undefined && listPaths.length === 0) throw new UsageError('--as-of dates a list: give --revocations, --pub78 or --sdn with it');
  const files = (() => {
    try {
      return positionals.length === 0 ? [] : bmfFiles(positionals);
    } catch (error) {
      throw new UsageError(`cannot read ${(error as { path?: string }).path ?? positionals.join(' ')}: ${(error as Error).message}`);
    }
  })();
  if (positionals.length > 0 && files.length === 0) throw new UsageError('no .csv or .csv.gz files there');
  // Every list is read and checked before anything is written: a bad one changes nothing.
  const lists: ListFile[] = listPaths.map(({ kind, path }) => {
    try {
      return readListFile(kind, path);
    } catch (error) {
      if ((error as { code?: string }).code === 'ENOENT' || (error as { code?: string }).code === 'EISDIR')
        throw new UsageError(`cannot read ${path}: ${(error as Error).message}`);
      throw error;
    }
  });
  return withPlatform(
    async ({ deps }) => {
      if (files.length > 0) await importFiles(deps, files, values.zips);
      for (const list of lists) {
        const recorded = await recordList(deps, list, asOf, actor());
        process.stdout.write(`Imported the ${list.kind} list as of ${asOf}: ${recorded.entries.toLocaleString('en-US')} entries from ${list.source}.\n`);
      }
      return report(await screenDirectory(deps, screeningProgress()));
    },
    { whole: true },
  );
}

async function importFiles(deps: Parameters<typeof importBmf>[0], files: string[], zips: string | undefined): Promise<void> {
  const started = Date.now();
  const summary = await importBmf(deps, files, {
    ...(zips === undefined ? {} : { zipCentroids: zips }),
    onProgress: progressPrinter(),
    onStep: (step) => process.stderr.write(`${process.stderr.isTTY === true ? '\n' : ''}${step}...\n`),
  });
  if (process.stderr.isTTY === true) process.stderr.write('\n');
  const seconds = (Date.now() - started) / 1000;
  process.stdout.write(
    [
      `Imported ${summary.rows.toLocaleString('en-US')} rows from ${summary.files} file${summary.files === 1 ? '' : 's'} in ${seconds.toFixed(1)} s:`,
      `  added ${summary.added}, updated ${summary.updated}, unchanged ${summary.unchanged}, kept newer ${summary.older}, marked removed ${summary.removed}, rejected ${summary.rejected}`,
      ...summary.rejections.slice(0, 50).map((r) => `  rejected ${r.file}:${r.line}: ${r.reason}`),
      ...(summary.rejected > 50 ? [`  ... and ${summary.rejected - 50} more rejected`] : []),
      '',
    ].join('\n'),
  );
}
