import { timingSafeEqual } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { AppContext } from '../context.ts';
import { AppError } from '../lib/errors.ts';
import { rowsOf } from '../lib/limits.ts';
import { processRegistry } from '../lib/metrics.ts';

/**
 * GET /api/metrics in the Prometheus text format (docs/operations.md). Served only when METRICS_TOKEN is set
 * (otherwise the route does not exist: 404) and only with `Authorization: Bearer <METRICS_TOKEN>` (401).
 * Each instance reports its own requests and connections; the job and outbox numbers come from the shared
 * database, so every instance reports the same values for them (aggregate with max, not sum).
 */
export function registerMetrics(app: FastifyInstance, ctx: AppContext): void {
  const token = ctx.config.METRICS_TOKEN;
  if (!token) return;
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'sales_agent_' });

  const httpDuration = new Histogram({
    name: 'sales_agent_http_request_duration_seconds',
    help: 'HTTP request latency by method, route pattern and status code.',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const webhookAcks = new Counter({
    name: 'sales_agent_webhook_acknowledgements_total',
    help: 'Answers to provider webhooks (Meta, Twilio, SMS gateway) by route and status code; non-2xx means the provider retries.',
    labelNames: ['route', 'status_code'] as const,
    registers: [registry],
  });

  new Gauge({
    name: 'sales_agent_live_connections',
    help: 'Open live event streams (server-sent events) on this instance.',
    registers: [registry],
    collect() {
      this.set(ctx.events.listenerCount('conversation.changed'));
    },
  });
  /** A gauge with one value per job name, read from the jobs table at each scrape (collectQueues). */
  const perJobGauge = (name: string, help: string) => new Gauge({ name, help, labelNames: ['name'] as const, registers: [registry] });
  const jobsDepth = perJobGauge('sales_agent_jobs_due', 'Background jobs that are due and waiting for a runner, by job name.');
  const jobsLag = perJobGauge('sales_agent_jobs_lag_seconds', 'How long the oldest due job of each name has been waiting past its run time.');
  const jobsRunning = perJobGauge('sales_agent_jobs_running', 'Background jobs being run now, by job name.');
  const outbox = new Gauge({
    name: 'sales_agent_outbox_messages',
    help: 'Outbound channel messages waiting (PENDING) or given up (FAILED), by channel.',
    labelNames: ['channel', 'status'] as const,
    registers: [registry],
  });

  /** Reads the queue gauges from the database once per scrape. */
  async function collectQueues(): Promise<void> {
    const [jobs, messages] = await Promise.all([
      ctx.db.execute(sql`
        select name, status, count(*)::int as count,
               coalesce(extract(epoch from now() - min(run_at)), 0)::float8 as lag
        from jobs where status = 'running' or (status = 'pending' and run_at <= now())
        group by name, status`),
      ctx.db.execute(sql`select channel, status, count(*)::int as count from outbox where status in ('PENDING', 'FAILED') group by channel, status`),
    ]);
    jobsDepth.reset();
    jobsLag.reset();
    jobsRunning.reset();
    outbox.reset();
    for (const row of rowsOf<{ name: string; status: string; count: number; lag: number }>(jobs)) {
      if (row.status === 'running') {
        jobsRunning.set({ name: row.name }, Number(row.count));
      } else {
        jobsDepth.set({ name: row.name }, Number(row.count));
        jobsLag.set({ name: row.name }, Math.max(0, Number(row.lag)));
      }
    }
    for (const row of rowsOf<{ channel: string; status: string; count: number }>(messages)) {
      outbox.set({ channel: row.channel, status: row.status }, Number(row.count));
    }
  }

  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const labels = { method: request.method, route, status_code: String(reply.statusCode) };
    httpDuration.observe(labels, reply.elapsedTime / 1000);
    if (/\/webhook$/.test(route) && !route.startsWith('/api/admin/')) webhookAcks.inc({ route, status_code: labels.status_code });
  });

  app.get('/api/metrics', { schema: { tags: ['health'], summary: 'Prometheus metrics (Bearer METRICS_TOKEN)', hide: true } }, async (request, reply) => {
    if (!hasToken(request, token)) {
      reply.header('www-authenticate', 'Bearer');
      throw new AppError(401, 'UNAUTHORIZED', 'A valid metrics token is required.');
    }
    await collectQueues().catch((err) => request.log.warn({ err }, 'metrics: could not read the queues'));
    const merged = Registry.merge([registry, processRegistry]);
    return reply.type(merged.contentType).send(await merged.metrics());
  });
}

function hasToken(request: FastifyRequest, token: string): boolean {
  const header = request.headers.authorization ?? '';
  const match = /^Bearer\s+(.+)$/i.exec(header);
  if (!match) return false;
  const given = Buffer.from(match[1].trim());
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
