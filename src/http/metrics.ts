// GET /metrics: Prometheus text from the platform's registry (src/metrics.ts),
// and every answered request observed by its route pattern and status.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Metrics } from '../metrics.ts';
import { problemCodeOf } from './errors.ts';

/**
 * Observes every request; serves GET /metrics when `route` (METRICS, and the listener that serves
 * it). Its per-route timings tell what requests cost, so where the listener also serves the public,
 * `authorize` runs first (an operator token); on the operator's own listener (ADMIN_PORT) it is open.
 */
export function registerMetrics(app: FastifyInstance, metrics: Metrics, route: boolean, authorize?: (request: FastifyRequest) => Promise<unknown>): void {
  // In flight from its first hook to its answer, or to the moment its client went away.
  const ends = new WeakMap<FastifyRequest, () => void>();
  app.addHook('onRequest', async (request) => {
    ends.set(request, metrics.requestStarted());
  });
  app.addHook('onRequestAbort', async (request) => {
    ends.get(request)?.();
  });
  app.addHook('onResponse', async (request, reply) => {
    ends.get(request)?.();
    metrics.request(request.method, request.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000);
    const code = problemCodeOf(request);
    if (code !== undefined) metrics.problem(code, reply.statusCode);
  });
  if (!route) return;
  app.get(
    '/metrics',
    { schema: { hide: true }, ...(authorize === undefined ? {} : { onRequest: async (request: FastifyRequest) => void (await authorize(request)) }) },
    async (_request, reply) => {
      return reply.type(metrics.registry.contentType).send(await metrics.registry.metrics());
    },
  );
}
