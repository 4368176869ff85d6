// Assertions are for programmer errors: a failed one is a bug, answered 500.
export class AssertionError extends Error {
  override name = 'AssertionError';
}

export function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new AssertionError(message);
}

export function assertSafeInteger(value: unknown, what: string): asserts value is number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
    throw new AssertionError(`${what} must be a safe integer, got ${String(value)}`);
  }
}
