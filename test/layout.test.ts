// The layout rules (scripts/check-layout.ts) on a planted project: each rule fails on its example,
// and the list of long functions only shrinks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkLayout } from '../scripts/check-layout.ts';

test('planted: a calendar day by hand, currency text and money by 100 outside money.ts, a long function, a stale allowance', () => {
  const root = mkdtempSync(join(tmpdir(), 'almoner-layout-'));
  try {
    mkdirSync(join(root, 'src', 'shared'), { recursive: true });
    writeFileSync(join(root, 'tsconfig.json'), JSON.stringify({ compilerOptions: { strict: true, noEmit: true, target: 'es2022', module: 'nodenext' }, include: ['src'] }));
    writeFileSync(join(root, 'src', 'day.ts'), 'export const isDay = (t: string) => /^\\d{4}-\\d{2}-\\d{2}$/.test(t);\n');
    writeFileSync(
      join(root, 'src', 'money.ts'),
      [
        "export const text = (d: number) => d.toLocaleString('en-US', { style: 'currency', currency: 'USD' });",
        'export const dollars = (amount_cents: number) => amount_cents / 100;',
        'export const cents = (balance: number) => Math.round(balance * 100);',
        // Not money: a share of 100.
        'export const percent = (fraction: number) => fraction * 100;',
        '',
      ].join('\n'),
    );
    // The same in the one place they belong: no problem.
    writeFileSync(join(root, 'src', 'shared', 'money.ts'), 'export const dollars = (amount_cents: number) => amount_cents / 100;\n');
    writeFileSync(join(root, 'src', 'shared', 'days.ts'), 'export const isDay = (t: string) => /^\\d{4}-\\d{2}-\\d{2}$/.test(t);\n');
    const body = Array.from({ length: 70 }, (_, i) => `  n += ${i};`).join('\n');
    writeFileSync(
      join(root, 'src', 'long.ts'),
      `export function long(): number {\n  let n = 0;\n${body}\n  return n;\n}\nexport function longer(): number {\n  let n = 0;\n${body}\n  return n;\n}\n`,
    );
    const problems = checkLayout(root, { 'src/long.ts: longer': 74, 'src/gone.ts: split': 90 });
    const has = (pattern: RegExp) =>
      assert.ok(
        problems.some((p) => pattern.test(p)),
        `${pattern} in:\n${problems.join('\n')}`,
      );
    has(/^src\/day\.ts:1: a calendar day checked by hand/);
    has(/^src\/money\.ts:1: currency text outside src\/shared\/money\.ts/);
    has(/^src\/money\.ts:2: money multiplied or divided by 100/);
    has(/^src\/money\.ts:3: money multiplied or divided by 100/);
    has(/^src\/long\.ts: long is 74 lines \(at most 70\): split it$/);
    has(/^src\/gone\.ts: split is 70 lines or fewer now \(or gone\): remove it/);
    assert.ok(!problems.some((p) => p.startsWith('src/shared/')), 'money.ts and days.ts may');
    assert.ok(!problems.some((p) => /money\.ts:4/.test(p)), 'a percentage is not money');
    assert.ok(!problems.some((p) => /longer/.test(p)), 'an allowance as long as the function holds');
    assert.ok(
      checkLayout(root, { 'src/long.ts: longer': 73, 'src/long.ts: long': 74 }).some((p) => /longer grew to 74 lines/.test(p)),
      'none may grow',
    );
    assert.ok(
      checkLayout(root, { 'src/long.ts: longer': 80, 'src/long.ts: long': 74 }).some((p) => /longer is now 74 lines: lower its allowance/.test(p)),
      'the list only shrinks',
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
