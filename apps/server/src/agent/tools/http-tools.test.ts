import { eq } from 'drizzle-orm';
import { beforeEach, describe, expect, it } from 'vitest';
import { agentToolCalls, conversationLeadFields, conversationTypes } from '../../db/schema/index.ts';
import { agentMessagesOf, buildPlaybook } from '../../test/agent-factories.ts';
import { startHttpToolFake } from '../../test/fakes/http-tool-fake.ts';
import { OpenAiFake } from '../../test/fakes/openai-fake.ts';
import { useFake, useTestApp, useUser } from '../../test/use-test-app.ts';
import { receiveProspectMessage, startWebConversation } from '../agent.service.ts';

const llm = useFake(new OpenAiFake());
const api = useFake(() => startHttpToolFake());
const t = useTestApp({ env: () => llm.env({ LLM_MAX_RETRIES: '0' }) });
const admin = useUser(t, 'ADMIN');
const normal = useUser(t, 'NORMAL');

const orderTool = (over: Record<string, unknown> = {}) => ({
  name: 'order_status',
  description: "Looks up an order's shipping status by its number.",
  parameters: { type: 'object', properties: { orderId: { type: 'string', pattern: '^[0-9]+$' } }, required: ['orderId'], additionalProperties: false },
  method: 'POST',
  url: `${api.baseUrl}/orders/{orderId}`,
  headers: { 'X-Api-Key': 'team-key-7731' },
  secret: api.secret,
  ...over,
});

beforeEach(() => {
  llm.reset();
  api.mode = 'ok';
  api.requests.length = 0;
});

async function saveConfig(typeId: number, config: unknown) {
  return t.request({ method: 'POST', url: `/api/admin/conversation-type/${typeId}/config`, as: admin.cookie, payload: JSON.stringify(config, null, 2), headers: { 'content-type': 'text/plain' } });
}

async function toolConversation(tool = orderTool()) {
  const type = await buildPlaybook(t.ctx, { phases: 3 });
  const saved = await saveConfig(type.id, { replyDebounceSeconds: 0, tools: [tool] });
  expect(saved.statusCode, saved.body).toBe(200);
  return { type, ...(await startWebConversation(t.ctx, type.id)) };
}

it('seals header values and the secret, masks them in answers, and calls the tool signed with the opened values', async () => {
  const { type, id } = await toolConversation();
  const [stored] = await t.ctx.db.select({ config: conversationTypes.config }).from(conversationTypes).where(eq(conversationTypes.id, type.id));
  expect(stored!.config).not.toContain('team-key-7731');
  expect(stored!.config).not.toContain(api.secret);
  const answered = (await t.request({ method: 'GET', url: `/api/conversation-type/${type.id}`, as: admin.cookie })).json().config as string;
  expect(answered).toContain('"X-Api-Key": "••••7731"');
  expect(answered).not.toContain(api.secret);
  // The masked text saved back keeps the stored values.
  expect((await t.request({ method: 'POST', url: `/api/admin/conversation-type/${type.id}/config`, as: admin.cookie, payload: answered, headers: { 'content-type': 'text/plain' } })).statusCode).toBe(200);

  llm.once('tools', { toolCalls: [{ name: 'order_status', arguments: { orderId: '1042', note: undefined } }] });
  await receiveProspectMessage(t.ctx, id, 'Where is order 1042?');
  await t.ctx.jobs.drain();

  expect(llm.requests.find((r) => r.schemaName === 'tools')!.tools).toEqual(['order_status']);
  expect(api.requests).toEqual([expect.objectContaining({ method: 'POST', path: '/orders/1042', body: '{}', signatureValid: true })]);
  expect(api.requests[0]!.headers['x-api-key']).toBe('team-key-7731');
  const [call] = await t.ctx.db.select().from(agentToolCalls).where(eq(agentToolCalls.conversationId, id));
  expect(call).toMatchObject({ name: 'order_status', ok: true, result: '{"order":"1042","status":"shipped","eta":"2026-12-01"}' });
  const draft = llm.requests.find((r) => r.schemaName === 'draft_reply')!;
  expect(JSON.stringify(draft.messages)).toContain('order_status answered');
});

describe('a failing custom tool reaches the model as an error and the prospect is still answered', () => {
  const failing = async (args: Record<string, unknown>, toolOver: Record<string, unknown> = {}) => {
    const { id } = await toolConversation(orderTool(toolOver));
    llm.once('tools', { toolCalls: [{ name: 'order_status', arguments: args }] });
    await receiveProspectMessage(t.ctx, id, 'Where is my order?');
    await t.ctx.jobs.drain();
    expect((await agentMessagesOf(t.ctx, id)).at(-1)).toBe('Fake reply');
    const [call] = await t.ctx.db.select().from(agentToolCalls).where(eq(agentToolCalls.conversationId, id));
    expect(call!.ok).toBe(false);
    return call!.result;
  };

  it('arguments that break its JSON Schema never leave the server', async () => {
    expect(await failing({ orderId: 'abc' })).toBe('invalid arguments: /orderId must match pattern "^[0-9]+$"');
    expect(api.requests).toEqual([]);
  });
  it('an HTTP error', async () => {
    api.mode = 'error';
    expect(await failing({ orderId: '7' })).toBe('order_status answered HTTP 500: {"error":"order service down"}');
  });
  it('an oversize answer', async () => {
    api.mode = 'big';
    expect(await failing({ orderId: '7' })).toBe('order_status answered more than 16 KB');
  });
  it('a redirect is not followed', async () => {
    api.mode = 'redirect';
    expect(await failing({ orderId: '7' })).toBe('order_status answered a redirect (302); redirects are not followed');
    expect(api.requests).toHaveLength(1);
  });
  it('its own timeout', async () => {
    api.mode = 'hang';
    expect(await failing({ orderId: '7' }, { timeoutMs: 500 })).toBe('order_status did not answer within 0.5 s');
  });
  it('a loopback URL without ALLOW_PRIVATE_URLS', async () => {
    const { id } = await toolConversation();
    t.ctx.config.ALLOW_PRIVATE_URLS = false;
    try {
      llm.once('tools', { toolCalls: [{ name: 'order_status', arguments: { orderId: '7' } }] });
      await receiveProspectMessage(t.ctx, id, 'Where is my order?');
      await t.ctx.jobs.drain();
      const [call] = await t.ctx.db.select().from(agentToolCalls).where(eq(agentToolCalls.conversationId, id));
      expect(call!.result).toContain('is a private, loopback or link-local address');
      expect(api.requests).toEqual([]);
      // ... and such a URL cannot be saved either.
      const type = await buildPlaybook(t.ctx, { phases: 3 });
      const saved = await saveConfig(type.id, { tools: [orderTool()] });
      expect(saved.statusCode).toBe(400);
      expect(saved.json().error).toContain('tools.0.url: 127.0.0.1 is a private, loopback or link-local address');
    } finally {
      t.ctx.config.ALLOW_PRIVATE_URLS = true;
    }
  });
});

it('refuses a tool config with a broken JSON Schema, a built-in name or a duplicate name', async () => {
  const type = await buildPlaybook(t.ctx, { phases: 3 });
  const broken = await saveConfig(type.id, { tools: [orderTool({ parameters: { type: 'object', properties: { a: { type: 'nope' } } } })] });
  expect(broken.statusCode).toBe(400);
  expect(broken.json().error).toContain('tools.0.parameters:');
  const builtIn = await saveConfig(type.id, { tools: [orderTool({ name: 'book_meeting' })] });
  expect(builtIn.json().error).toContain('tools.0.name: is the name of a built-in tool');
  const twice = await saveConfig(type.id, { tools: [orderTool(), orderTool()] });
  expect(twice.json().error).toContain('tool names must be unique');
});

describe('POST /api/admin/conversation-type/{id}/tools/{name}/test', () => {
  it('runs the saved tool with sample arguments and answers what came back; 400, 401, 403, 404', async () => {
    const { type } = await toolConversation();
    const url = `/api/admin/conversation-type/${type.id}/tools/order_status/test`;
    const ok = await t.request({ method: 'POST', url, as: admin.cookie, payload: { arguments: { orderId: '55' } } });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json()).toMatchObject({ ok: true, status: 200, result: '{"order":"55","status":"shipped","eta":"2026-12-01"}' });
    expect(api.requests[0]!.signatureValid).toBe(true);
    api.mode = 'error';
    expect((await t.request({ method: 'POST', url, as: admin.cookie, payload: { arguments: { orderId: '55' } } })).json()).toMatchObject({ ok: false, status: 500 });
    expect((await t.request({ method: 'POST', url, as: admin.cookie, payload: { arguments: 'x' } })).statusCode).toBe(400);
    expect((await t.request({ method: 'POST', url, payload: { arguments: {} } })).statusCode).toBe(401);
    expect((await t.request({ method: 'POST', url, as: normal.cookie, payload: { arguments: {} } })).statusCode).toBe(403);
    expect((await t.request({ method: 'POST', url: `/api/admin/conversation-type/${type.id}/tools/nope/test`, as: admin.cookie, payload: { arguments: {} } })).statusCode).toBe(404);
    expect((await t.request({ method: 'POST', url: '/api/admin/conversation-type/999999/tools/order_status/test', as: admin.cookie, payload: { arguments: {} } })).statusCode).toBe(404);
  });
});

describe('least data (issue 22): a tool gets the model\'s arguments only, unless its config asks for more', () => {
  const leadFields = [{ key: 'company', label: 'Company', type: 'text' }];
  async function calledWith(tool: Record<string, unknown>) {
    const type = await buildPlaybook(t.ctx, { phases: 3 });
    const saved = await saveConfig(type.id, { replyDebounceSeconds: 0, leadFields, tools: [orderTool(tool)] });
    expect(saved.statusCode, saved.body).toBe(200);
    const { id } = await startWebConversation(t.ctx, type.id);
    await t.ctx.db.insert(conversationLeadFields).values({ conversationId: id, key: 'company', value: 'Acme', source: 'agent' });
    llm.once('tools', { toolCalls: [{ name: 'order_status', arguments: { orderId: '7' } }] });
    await receiveProspectMessage(t.ctx, id, 'Where is order 7?');
    await t.ctx.jobs.drain();
    expect(api.requests).toHaveLength(1);
    expect(api.requests[0]!.signatureValid).toBe(true);
    return JSON.parse(api.requests[0]!.body) as Record<string, unknown>;
  }

  it('by default: neither the lead fields nor the transcript', async () => {
    expect(await calledWith({})).toEqual({});
  });

  it('includeLeadFields: the prospect\'s fields, still no transcript', async () => {
    expect(await calledWith({ includeLeadFields: true })).toEqual({ context: { leadFields: { company: 'Acme' } } });
  });

  it('includeTranscript: the prospect\'s and agent\'s messages', async () => {
    const body = await calledWith({ includeTranscript: true });
    expect(body).toEqual({ context: { transcript: expect.arrayContaining([{ role: 'prospect', text: 'Where is order 7?' }]) } });
    expect(body.context).not.toHaveProperty('leadFields');
  });
});
