import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import fc from 'fast-check';
import { FreshReads } from './fresh-reads.ts';

/** A read that takes `ms` and answers how many reads had begun when it began. */
function counter(ms: () => number) {
  let begun = 0;
  return {
    get begun() {
      return begun;
    },
    read: async () => {
      const mine = ++begun;
      await sleep(ms());
      return mine;
    },
  };
}

test('requests that ask in one turn of the event loop share one read', async () => {
  const c = counter(() => 5);
  const reads = new FreshReads(c.read);
  const answers = await Promise.all(Array.from({ length: 50 }, () => reads.get()));
  assert.deepEqual(new Set(answers), new Set([1]));
  assert.equal(c.begun, 1);
});

test('requests that ask while a read runs share the next one: 50 cost two', async () => {
  const c = counter(() => 5);
  const reads = new FreshReads(c.read);
  const first = reads.get();
  await new Promise((resolve) => setImmediate(resolve)); // the first read has begun
  assert.equal(c.begun, 1);
  const rest = Array.from({ length: 49 }, () => reads.get());
  assert.equal(await first, 1);
  assert.deepEqual(new Set(await Promise.all(rest)), new Set([2]));
  assert.equal(c.begun, 2);
});

test('every answer comes from a read that began after its request asked', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(fc.record({ waitMs: fc.integer({ min: 0, max: 6 }), readMs: fc.integer({ min: 0, max: 4 }) }), { minLength: 1, maxLength: 30 }), async (plan) => {
      let i = 0;
      const c = counter(() => plan[i++ % plan.length]?.readMs ?? 1);
      const reads = new FreshReads(c.read);
      const asked: Array<Promise<void>> = [];
      for (const step of plan) {
        const begunWhenAsked = c.begun;
        asked.push(reads.get().then((answer) => assert.ok(answer > begunWhenAsked, `answer ${answer} began after the ask (${begunWhenAsked} had begun)`)));
        await sleep(step.waitMs);
      }
      await Promise.all(asked);
      assert.ok(c.begun <= plan.length, 'never more reads than requests');
    }),
    { numRuns: 40 },
  );
});

test('a failed read fails only the requests it was to answer; the next request reads again', async () => {
  let fail = true;
  const reads = new FreshReads(async () => {
    const failing = fail;
    await sleep(2);
    if (failing) throw new Error('database went away');
    return 7;
  });
  const failed = reads.get();
  await new Promise((resolve) => setImmediate(resolve)); // the failing read has begun
  const waiting = reads.get();
  fail = false;
  await assert.rejects(failed, /went away/);
  assert.equal(await waiting, 7);
  assert.equal(await reads.get(), 7);
});
