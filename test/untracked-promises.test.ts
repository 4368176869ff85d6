// The runner turns node:test's promise tracking off (test/untracked-promises.ts): an error no test
// awaited must still fail the run, named, whether the tracking is on or off.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';

// A run of its own, not a part of this file's (node:test skips a nested run while this is set).
const { NODE_TEST_CONTEXT: _nested, ...env } = process.env;

for (const stray of ['timer', 'rejection'] as const) {
  for (const tracking of [false, true]) {
    test(`an error thrown outside a test's await chain (${stray}) fails the run, tracking ${tracking ? 'on' : 'off'}`, () => {
      const run = spawnSync(
        process.execPath,
        [...(tracking ? [] : ['--import', './test/untracked-promises.ts']), '--test', '--test-reporter=spec', 'test/fixtures/stray-errors.ts'],
        { encoding: 'utf8', env: { ...env, STRAY: stray } },
      );
      const said = `${run.stdout}${run.stderr}`;
      assert.notEqual(run.status, 0, said);
      assert.match(said, stray === 'timer' ? /stray error from a timer/ : /stray rejection nobody awaited/);
      assert.match(said, /ℹ fail [1-9]/);
      // Tracked, the failure is the test's that made it; untracked (the runner's way), the file's.
      if (tracking) assert.match(said, /✖ a (timer throws|promise is rejected and never awaited)/);
      else assert.match(said, /asynchronous activity after the test ended/);
    });
  }
}
