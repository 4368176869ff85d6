// The response serializers every app in this process shares. fast-json-stringify turns a response
// schema into a function by generating and compiling code: most of an app's start-up. Fastify's
// own factory compiles again for every app; this one keeps what it built, by the schema's text and
// the shared schemas and options it was built with (many routes build their response schemas as
// they register), so a second app (another listener, a test's next database) takes the first
// one's functions.
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

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
      serializer = build(route);
      sameContext.set(key, serializer);
    }
    return serializer;
  };
}
