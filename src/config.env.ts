// Reading one setting from the environment: a whole number, a flag, one of some words, a power
// of two. A value that cannot be used is refused by name, with what was given.

export function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new Error(`${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(raw)}`);
  }
  return value;
}

/** `true` or `false` (also 1/0, yes/no, on/off); anything else is refused by name. */
export function flag(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name]?.trim().toLowerCase();
  if (raw === undefined || raw === '') return fallback;
  if (['true', '1', 'yes', 'on'].includes(raw)) return true;
  if (['false', '0', 'no', 'off'].includes(raw)) return false;
  throw new Error(`${name} must be true or false, got ${JSON.stringify(env[name])}`);
}

/** One of `values` (trimmed, lower case), or the fallback when unset; anything else is refused by name. */
export function oneOf(env: NodeJS.ProcessEnv, name: string, fallback: string, values: readonly string[]): string {
  const raw = env[name]?.trim().toLowerCase();
  if (raw === undefined || raw === '') return fallback;
  if (!values.includes(raw)) throw new Error(`${name} must be one of ${values.join(', ')}, got ${JSON.stringify(env[name])}`);
  return raw;
}

export function powerOfTwo(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const value = integer(env, name, fallback, min, max);
  if ((value & (value - 1)) !== 0) throw new Error(`${name} must be a power of two, got ${value}`);
  return value;
}
