// GET /metrics: Prometheus text from the platform's registry (src/metrics.ts),
// and every answered request observed by its route pattern and status.
import type { FastifyInstance } from 'fastify';
import type { Metrics } from '../metrics.ts';

/** Observes every request; serves GET /metrics when `route` (METRICS, and the listener that serves it). */
export function registerMetrics(app: FastifyInstance, metrics: Metrics, route: boolean): void {
  app.addHook('onResponse', async (request, reply) => {
    metrics.request(request.method, request.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000);
  });
  if (!route) return;
  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
    return reply.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });
}
