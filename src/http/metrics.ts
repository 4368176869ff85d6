// GET /metrics: Prometheus text. Counts requests by route, method and
// status, and sums their durations; enough to alert on errors and latency.
import type { FastifyInstance } from 'fastify';

export function registerMetrics(app: FastifyInstance): void {
  const counts = new Map<string, { count: number; seconds: number }>();
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const key = `method="${request.method}",route="${route}",status="${reply.statusCode}"`;
    const entry = counts.get(key) ?? { count: 0, seconds: 0 };
    entry.count += 1;
    entry.seconds += reply.elapsedTime / 1000;
    counts.set(key, entry);
  });
  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
    const lines = [
      '# HELP almoner_http_requests_total HTTP requests answered.',
      '# TYPE almoner_http_requests_total counter',
      ...[...counts].map(([k, v]) => `almoner_http_requests_total{${k}} ${v.count}`),
      '# HELP almoner_http_request_seconds_sum Time spent answering HTTP requests.',
      '# TYPE almoner_http_request_seconds_sum counter',
      ...[...counts].map(([k, v]) => `almoner_http_request_seconds_sum{${k}} ${v.seconds.toFixed(6)}`),
      '# HELP almoner_process_resident_memory_bytes Resident memory.',
      '# TYPE almoner_process_resident_memory_bytes gauge',
      `almoner_process_resident_memory_bytes ${process.memoryUsage.rss()}`,
      '# HELP almoner_process_heap_used_bytes JavaScript heap in use.',
      '# TYPE almoner_process_heap_used_bytes gauge',
      `almoner_process_heap_used_bytes ${process.memoryUsage().heapUsed}`,
    ];
    return reply.type('text/plain; version=0.0.4').send(`${lines.join('\n')}\n`);
  });
}
