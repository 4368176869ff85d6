// The order by size the held directory numbers organisations in (directory.load.ts): biggest
// income first, then the lowest position, whatever the runs its sort goes by; a load told to
// stop between steps stops.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { Abandoned, INCOME, ROW, sizeOrder } from './directory.load.ts';

const rowsOf = (incomes: readonly number[]) => {
  const rows = new Float64Array(incomes.length * ROW);
  incomes.forEach((income, p) => (rows[p * ROW + INCOME] = income));
  return rows;
};

test('ranks by size: biggest income first, then the lowest position; byRank undoes rankOf', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(fc.constantFrom(0, 0, 1, 250, 250, 9_999, 1e12, -5), { maxLength: 300 }), fc.constantFrom(1, 2, 3, 7, 64, 1 << 17), async (incomes, run) => {
      const { rankOf, byRank } = await sizeOrder(rowsOf(incomes), async () => true, run);
      const expected = incomes.map((_, p) => p).sort((a, b) => (incomes[b] as number) - (incomes[a] as number) || a - b);
      assert.deepEqual([...byRank], expected);
      expected.forEach((p, rank) => assert.equal(rankOf[p], rank));
    }),
    { numRuns: 300 },
  );
});

test('the sort serves the event loop between its steps, and stops when told to', async () => {
  let asked = 0;
  const incomes = Array.from({ length: 1_000 }, (_, i) => (i * 7_919) % 1_000);
  await sizeOrder(rowsOf(incomes), async () => (asked += 1) > 0, 100);
  // Ten runs copied and sorted, then four levels of merging, each writing the 1,000 a run at a time.
  assert.equal(asked, 10 + 4 * 10);
  await assert.rejects(
    sizeOrder(rowsOf(incomes), async () => false, 100),
    Abandoned,
  );
});
