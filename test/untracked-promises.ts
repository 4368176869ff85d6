// Loaded into each test file's process by scripts/test.ts (`--import`), before node:test: the test
// runner's own async hook, which follows every promise and timer a test makes so that an error
// thrown outside the test's await chain names that test, is not enabled.
//
// That hook's init and destroy callbacks run for every promise (V8 leaves its fast path for them):
// the authorization matrix on SQLite took 44-49 s with it and 34 s without (user CPU 39-43 s
// against 29 s), docs/performance-history.md. Nothing that fails passes without it: an uncaught
// error or an unhandled rejection still fails its file, named, as "asynchronous activity after
// the test ended"; only the test it came from goes unnamed. ALMONER_TEST_TRACK_ASYNC=1 (read by
// scripts/test.ts) leaves the hook on to find it.
import asyncHooks from 'node:async_hooks';

const createHook = asyncHooks.createHook;
asyncHooks.createHook = function untrackedInTheTestRunner(callbacks: asyncHooks.HookCallbacks): asyncHooks.AsyncHook {
  // Only the test runner's: any other caller (ours, a library's) gets its hook as always.
  if (!(new Error().stack ?? '').includes('internal/test_runner/harness')) return createHook.call(asyncHooks, callbacks);
  const idle: asyncHooks.AsyncHook = {
    enable: () => idle,
    disable: () => idle,
  };
  return idle;
};
