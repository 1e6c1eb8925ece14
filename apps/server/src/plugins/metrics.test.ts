import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { receiveProspectMessage, startWebConversation } from '../agent/agent.service.ts';
import { buildPlaybook } from '../test/agent-factories.ts';
import { useFake, useTestApp } from '../test/use-test-app.ts';
import { OpenAiFake } from '../test/fakes/openai-fake.ts';

const TOKEN = 'metrics-token-0123456789';
const fake = useFake(new OpenAiFake());
const t = useTestApp({ env: () => fake.env({ METRICS_TOKEN: TOKEN, LLM_MAX_RETRIES: '0' }) });

const scrape = (authorization?: string) =>
  t.request({ method: 'GET', url: '/api/metrics', headers: authorization ? { authorization } : {} });

/** The value of one sample line (`name{labels} value`) in a scrape, or undefined. */
function sample(text: string, prefix: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(prefix));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('GET /api/metrics', () => {
  it('answers 401 without the token or with a wrong one', async () => {
    for (const header of [undefined, `Bearer ${TOKEN}x`, `Basic ${TOKEN}`, 'Bearer ']) {
      const res = await scrape(header);
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({ error: 'A valid metrics token is required.', code: 'UNAUTHORIZED' });
      expect(res.headers['www-authenticate']).toBe('Bearer');
    }
  });

  it('reports request latency per route, webhook answers, queues and live connections in the Prometheus format', async () => {
    await t.request({ method: 'GET', url: '/api/health' });
    await t.request({ method: 'GET', url: '/api/meta-api/webhook?hub.mode=subscribe&hub.verify_token=wrong&hub.challenge=1' });
    await t.ctx.db.execute(sql`insert into jobs (name, payload, run_at) values ('metrics-probe', '{}', now() - interval '30 seconds')`);
    await t.ctx.db.execute(sql`insert into outbox (channel, payload, status) values ('whatsapp', '{}', 'PENDING'), ('whatsapp', '{}', 'FAILED'), ('sms', '{}', 'PENDING')`);

    const res = await scrape(`Bearer ${TOKEN}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = res.body;
    expect(sample(text, 'sales_agent_http_request_duration_seconds_count{method="GET",route="/api/health",status_code="200"}')).toBe(1);
    expect(sample(text, 'sales_agent_webhook_acknowledgements_total{route="/api/meta-api/webhook",status_code="403"}')).toBe(1);
    expect(sample(text, 'sales_agent_jobs_due{name="metrics-probe"}')).toBe(1);
    expect(sample(text, 'sales_agent_jobs_lag_seconds{name="metrics-probe"}')).toBeGreaterThanOrEqual(29);
    expect(sample(text, 'sales_agent_outbox_messages{channel="whatsapp",status="PENDING"}')).toBe(1);
    expect(sample(text, 'sales_agent_outbox_messages{channel="whatsapp",status="FAILED"}')).toBe(1);
    expect(sample(text, 'sales_agent_outbox_messages{channel="sms",status="PENDING"}')).toBe(1);
    expect(sample(text, 'sales_agent_live_connections')).toBe(0);
    expect(text).toContain('sales_agent_process_cpu_seconds_total');
    // The token never appears in what is served.
    expect(text).not.toContain(TOKEN);
  });

  it('reports LLM latency, tokens and cost of the calls of a turn', async () => {
    fake.on('draft_reply', { json: { reply: 'Sure.', needsHuman: false, reason: '' }, usage: { prompt_tokens: 1000, completion_tokens: 500 } });
    const type = await buildPlaybook(t.ctx);
    const { id } = await startWebConversation(t.ctx, type.id);
    // The LLM metrics are process-wide (lib/metrics.ts): other test files in the same worker may have counted
    // calls already, so the turn's share is the difference.
    const before = (await scrape(`Bearer ${TOKEN}`)).body;
    await receiveProspectMessage(t.ctx, id, 'Price?');
    await t.ctx.jobs.drain();
    const text = (await scrape(`Bearer ${TOKEN}`)).body;
    // The model label is the model that answered (as the server reports it), the one pricing uses.
    const model = /sales_agent_llm_tokens_total\{purpose="draft",model="([^"]+)"/.exec(text)?.[1];
    expect(model).toBeTruthy();
    const added = (name: string) => (sample(text, name) ?? 0) - (sample(before, name) ?? 0);
    expect(added(`sales_agent_llm_request_duration_seconds_count{purpose="draft",model="${model}",outcome="ok"}`)).toBe(1);
    expect(added(`sales_agent_llm_tokens_total{purpose="draft",model="${model}",kind="prompt"}`)).toBe(1000);
    expect(added(`sales_agent_llm_tokens_total{purpose="draft",model="${model}",kind="completion"}`)).toBe(500);
    expect(added(`sales_agent_llm_cost_usd_total{purpose="draft",model="${model}"}`)).toBeGreaterThan(0);
  });
});

describe('GET /api/metrics without METRICS_TOKEN', () => {
  const plain = useTestApp();

  it('does not exist (404)', async () => {
    const res = await plain.request({ method: 'GET', url: '/api/metrics', headers: { authorization: 'Bearer anything-at-all-here' } });
    expect(res.statusCode).toBe(404);
    expect(res.json().code).toBe('ROUTE_NOT_FOUND');
  });
});
