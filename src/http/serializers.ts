// The response serializers every app in this process shares. fast-json-stringify turns a response
// schema into a function by generating and compiling code, each at its first answer (ADR 31). Fastify's
// own factory compiles again for every app; this one keeps what it built, by the schema's text and
// the shared schemas and options it was built with (many routes build their response schemas as
// they register), so a second app (another listener, a test's next database) takes the first
// one's functions.
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { Compiled } from './validation.ts';

type Build = ReturnType<ReturnType<typeof SerializerSelector>>;
type Serializer = ReturnType<Build>;

const select = SerializerSelector();
const built = new Map<string, Map<string, Serializer>>();

export function buildSerializer(externalSchemas: unknown, options: unknown): Build {
  const build = select(externalSchemas as Parameters<typeof select>[0], options as Parameters<typeof select>[1]);
  const context = JSON.stringify([externalSchemas, options]);
  let cache = built.get(context);
  if (cache === undefined) {
    cache = new Map();
    built.set(context, cache);
  }
  const sameContext = cache;
  return (route) => {
    const key = JSON.stringify(route.schema);
    let serializer = sameContext.get(key);
    if (serializer === undefined) {
      serializer = onFirstUse(() => build(route));
      sameContext.set(key, serializer);
    }
    return serializer;
  };
}

const pending = new Set<() => void>();

/** A serializer built when first called (ADR 31: building every route's was a large part of a start). */
function onFirstUse(build: () => Serializer): Serializer {
  let real: Serializer | undefined;
  const compile = () => {
    real ??= build();
    pending.delete(compile);
    return real;
  };
  pending.add(compile);
  return ((data: unknown) => (real ?? compile())(data)) as Serializer;
}

/** Builds every serializer the apps of this process registered and no answer has used yet; throws on a schema it cannot build. */
export function compileEverySerializer(): Compiled {
  const compiled = pending.size;
  for (const compile of [...pending]) compile();
  let total = 0;
  for (const sameContext of built.values()) total += sameContext.size;
  return { compiled, total };
}
