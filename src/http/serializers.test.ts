import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Type } from '@sinclair/typebox';
import { buildSerializer, compileEverySerializer } from './serializers.ts';
import { compileEveryValidator, validatorCompiler } from './validation.ts';

const route = (schema: object) => ({ schema, method: 'GET', url: '/x', httpStatus: '200' });

test('a schema of the same text, in the same shared schemas, is compiled once per process', () => {
  const first = buildSerializer({}, {})(route(Type.Object({ id: Type.Integer() })));
  // Another app's factory, and a schema object built afresh as a route registers.
  const again = buildSerializer({}, {})(route(Type.Object({ id: Type.Integer() })));
  assert.equal(again, first);
  assert.equal(first({ id: 7, secret: 'x' }), '{"id":7}');
});

test('another schema, or other shared schemas, is compiled on its own', () => {
  const id = buildSerializer({}, {})(route(Type.Object({ id: Type.Integer() })));
  const name = buildSerializer({}, {})(route(Type.Object({ name: Type.String() })));
  assert.notEqual(name, id);
  assert.equal(name({ id: 7, name: 'a' }), '{"name":"a"}');
  const shared = { Thing: Type.Object({ n: Type.Integer() }, { $id: 'Thing' }) };
  const viaRef = buildSerializer(shared, {})(route(Type.Object({ id: Type.Integer() })));
  assert.notEqual(viaRef, id);
  assert.equal(viaRef({ id: 1 }), '{"id":1}');
});

test('validators are shared by text too, and a body is never coerced like a query string', () => {
  const schema = () => Type.Object({ n: Type.Integer() });
  const compile = (httpPart: string) => validatorCompiler()({ schema: schema(), httpPart, method: 'GET', url: '/x' });
  const body = compile('body');
  assert.equal(compile('body'), body);
  const query = compile('querystring');
  assert.notEqual(query, body);
  assert.equal(body({ n: '7' }), false, 'a body keeps its types');
  const coerced = { n: '7' };
  assert.equal(query(coerced), true);
  assert.deepEqual(coerced, { n: 7 }, 'a query string arrives as text and is coerced');
});

test('compiling every one says how many it built now, of how many were registered', () => {
  compileEveryValidator();
  compileEverySerializer();
  validatorCompiler()({ schema: Type.Object({ counted: Type.Integer() }), httpPart: 'body', method: 'POST', url: '/x' });
  buildSerializer({}, {})(route(Type.Object({ counted: Type.Integer() })));
  const validators = compileEveryValidator();
  const serializers = compileEverySerializer();
  assert.equal(validators.compiled, 1, 'the one registered since');
  assert.equal(serializers.compiled, 1, 'the one registered since');
  assert.ok(validators.total > validators.compiled && serializers.total > serializers.compiled, 'with those registered before');
  assert.deepEqual([compileEveryValidator().compiled, compileEverySerializer().compiled], [0, 0], 'nothing left');
});

test("each is compiled at its first use; a failed validation's errors are read from the function Fastify holds", () => {
  const body = validatorCompiler()({ schema: Type.Object({ lazy: Type.Integer({ minimum: 3 }) }), httpPart: 'body', method: 'POST', url: '/x' }) as ((data: unknown) => boolean) & {
    errors?: Array<{ instancePath: string; keyword: string }> | null;
  };
  assert.equal(body({ lazy: 1 }), false);
  assert.deepEqual(
    body.errors?.map((e) => [e.instancePath, e.keyword]),
    [['/lazy', 'minimum']],
  );
  assert.equal(body({ lazy: 4 }), true);
  assert.equal(body.errors, null, 'a valid body leaves no errors behind');
  // A schema no compiler can build fails when compiled: at its first use, or when every one is compiled.
  const broken = { type: 'object', properties: { n: { $ref: 'Nowhere#' } } };
  const refused = validatorCompiler()({ schema: broken, httpPart: 'body', method: 'POST', url: '/broken' });
  assert.throws(() => refused({ n: 1 }), /Nowhere/);
  assert.throws(() => compileEveryValidator(), /Nowhere/);
  const unbuilt = buildSerializer({}, {})(route(broken));
  assert.throws(() => compileEverySerializer(), /Nowhere/);
  assert.throws(() => unbuilt({ n: 1 }), /Nowhere/);
});
