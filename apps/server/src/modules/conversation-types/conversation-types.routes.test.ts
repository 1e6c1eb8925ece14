import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { conversationPhases, conversationTypes, messagingAccounts } from '../../db/schema/index.ts';
import { seedDemoData } from '../../db/seed.ts';
import { buildTestApp } from '../../test/build-test-app.ts';
import { useTestApp, useUser } from '../../test/use-test-app.ts';
import { DEMO_PLAYBOOK } from './demo-playbook.ts';

const t = useTestApp();
const admin = useUser(t, 'ADMIN');
const normal = useUser(t);

const typeFields = {
  title: 'Solar leads',
  rolePrompt: 'You are Sam, you sell rooftop solar panels.',
  triggerConversationPrompt: 'Engage homeowners only.',
  checkingPrompt: 'Never promise discounts.',
  errorPrompt: 'Say a colleague will call back.',
  initialMessage: 'Hi, this is Sam from SunCo!',
};

async function createType(fields: Record<string, unknown> = typeFields): Promise<number> {
  const res = await t.request({ method: 'POST', url: '/api/admin/conversation-type/create-edit', as: admin.cookie, payload: fields });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().conversationType.id;
}

async function createPhase(typeId: number, index: number, extra: Record<string, unknown> = {}) {
  const res = await t.request({
    method: 'POST',
    url: '/api/admin/conversation-phase/create-edit',
    as: admin.cookie,
    payload: { index, prompt: `Goal ${index}`, transitionPrompt: `Move on ${index}`, conversationType: { id: typeId }, ...extra },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().conversationPhase;
}

async function createAccount(): Promise<number> {
  const [row] = await t.ctx.db
    .insert(messagingAccounts)
    .values({ type: 'TWILIO', accessTokenEncrypted: t.ctx.secrets.seal('secret-token'), pageId: '+15550001', pageName: 'Sales line' })
    .returning();
  return row.id;
}

describe('conversation type create, edit and read', () => {
  it('creates a type, reads it back as ADMIN with its account, then edits it keeping the config', async () => {
    const accountId = await createAccount();
    const id = await createType({ ...typeFields, messagingAccountId: accountId });
    const read = await t.request({ method: 'GET', url: `/api/conversation-type/${id}`, as: admin.cookie });
    expect(read.statusCode).toBe(200);
    expect(read.json()).toMatchObject({
      id,
      ...typeFields,
      label: 'Solar leads',
      config: '{}',
      messagingAccountId: accountId,
      messagingAccount: { id: accountId, type: 'TWILIO', pageName: 'Sales line', pageId: '+15550001' },
      conversation_phases: [],
    });
    expect(JSON.stringify(read.json())).not.toContain('secret-token');

    await t.request({ method: 'POST', url: `/api/admin/conversation-type/${id}/config`, as: admin.cookie, payload: '{"temperature":0.2}', headers: { 'content-type': 'text/plain' } });
    const edit = await t.request({
      method: 'POST',
      url: '/api/admin/conversation-type/create-edit',
      as: admin.cookie,
      payload: { id, title: '', rolePrompt: 'New role', errorPrompt: 'New error', messagingAccountId: null },
    });
    expect(edit.json()).toEqual({ conversationType: { id } });
    const after = (await t.request({ method: 'GET', url: `/api/conversation-type/${id}`, as: admin.cookie })).json();
    expect(after).toMatchObject({
      title: null,
      label: 'New role',
      rolePrompt: 'New role',
      triggerConversationPrompt: null,
      checkingPrompt: null,
      initialMessage: null,
      messagingAccountId: null,
      messagingAccount: null,
      config: '{"temperature":0.2}',
    });
  });

  it('answers 400 naming the field for a missing required prompt, a wrong type or a malformed body', async () => {
    const missing = await t.request({ method: 'POST', url: '/api/admin/conversation-type/create-edit', as: admin.cookie, payload: { title: 'x', errorPrompt: 'e' } });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error).toContain('rolePrompt');
    const blank = await t.request({ method: 'POST', url: '/api/admin/conversation-type/create-edit', as: admin.cookie, payload: { rolePrompt: '   ', errorPrompt: 'e' } });
    expect(blank.statusCode).toBe(400);
    expect(blank.json().error).toContain('Role prompt is required');
    const wrong = await t.request({ method: 'POST', url: '/api/admin/conversation-type/create-edit', as: admin.cookie, payload: { rolePrompt: 'r', errorPrompt: 'e', messagingAccountId: 'one' } });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().error).toContain('messagingAccountId');
    const malformed = await t.request({ method: 'POST', url: '/api/admin/conversation-type/create-edit', as: admin.cookie, json: '{"rolePrompt":' });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().code).toBe('INVALID_JSON');
  });

  it('answers 400 when messagingAccountId points to no account, and when a given config is invalid', async () => {
    const res = await t.request({ method: 'POST', url: '/api/admin/conversation-type/create-edit', as: admin.cookie, payload: { ...typeFields, messagingAccountId: 999999 } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'MESSAGING_ACCOUNT_NOT_FOUND' });
    const config = await t.request({ method: 'POST', url: '/api/admin/conversation-type/create-edit', as: admin.cookie, payload: { ...typeFields, config: '{"temperature":9}' } });
    expect(config.statusCode).toBe(400);
    expect(config.json().error).toContain('temperature');
  });

  it('keeps the public title (what visitors see) through create and edit, in the config, and clears it', async () => {
    const save = (payload: Record<string, unknown>) =>
      t.request({ method: 'POST', url: '/api/admin/conversation-type/create-edit', as: admin.cookie, payload });
    const read = async (id: number) => (await t.request({ method: 'GET', url: `/api/conversation-type/${id}`, as: admin.cookie })).json();
    const id = await createType({ ...typeFields, publicTitle: '  Talk to SunCo  ' });
    expect(await read(id)).toMatchObject({ title: 'Solar leads', publicTitle: 'Talk to SunCo' });
    // A visitor's chat is named by it, never by the internal title.
    const { uuid } = (await t.request({ method: 'POST', url: '/api/conversation/new', payload: { conversationTypeId: id } })).json();
    const visitor = (await t.request({ method: 'GET', url: `/api/conversation/${uuid}` })).json();
    expect(JSON.stringify(visitor)).toContain('Talk to SunCo');
    expect(JSON.stringify(visitor)).not.toContain('Solar leads');

    // Other config fields are kept when the title changes; a save without publicTitle leaves it.
    await t.request({ method: 'POST', url: `/api/admin/conversation-type/${id}/config`, as: admin.cookie, payload: '{"temperature":0.2,"publicTitle":"Talk to SunCo"}', headers: { 'content-type': 'text/plain' } });
    expect((await save({ ...typeFields, id, publicTitle: 'Solar questions' })).statusCode).toBe(200);
    expect(JSON.parse((await read(id)).config)).toEqual({ temperature: 0.2, publicTitle: 'Solar questions' });
    expect((await save({ ...typeFields, id })).statusCode).toBe(200);
    expect((await read(id)).publicTitle).toBe('Solar questions');
    // Given with a config, it goes into that config.
    expect((await save({ ...typeFields, id, config: '{"temperature":0.4}', publicTitle: 'Ask us' })).statusCode).toBe(200);
    expect(JSON.parse((await read(id)).config)).toEqual({ temperature: 0.4, publicTitle: 'Ask us' });
    expect((await save({ ...typeFields, id, publicTitle: '' })).statusCode).toBe(200);
    expect(await read(id)).toMatchObject({ publicTitle: null, config: '{\n  "temperature": 0.4\n}' });

    const long = await save({ ...typeFields, id, publicTitle: 'x'.repeat(81) });
    expect(long.statusCode).toBe(400);
    expect(long.json().error).toContain('Public title must be at most 80 characters');
  });

  it('answers 404 when editing or reading an unknown type', async () => {
    const edit = await t.request({ method: 'POST', url: '/api/admin/conversation-type/create-edit', as: admin.cookie, payload: { ...typeFields, id: 999999 } });
    expect(edit.statusCode).toBe(404);
    expect(edit.json()).toEqual({ error: 'Conversation type not found', code: 'CONVERSATION_TYPE_NOT_FOUND' });
    const read = await t.request({ method: 'GET', url: '/api/conversation-type/999999', as: admin.cookie });
    expect(read.statusCode).toBe(404);
    const bad = await t.request({ method: 'GET', url: '/api/conversation-type/abc', as: admin.cookie });
    expect(bad.statusCode).toBe(400);
  });

  it('GET /api/conversation-type/:id is 401 anonymous and 403 NORMAL, even for a bad id', async () => {
    const id = await createType();
    expect((await t.request({ method: 'GET', url: `/api/conversation-type/${id}` })).statusCode).toBe(401);
    expect((await t.request({ method: 'GET', url: '/api/conversation-type/abc' })).statusCode).toBe(401);
    const res = await t.request({ method: 'GET', url: `/api/conversation-type/${id}`, as: normal.cookie });
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('FORBIDDEN');
  });

  it('every admin route is 401 anonymous and 403 NORMAL', async () => {
    const routes: Array<{ method: 'GET' | 'POST' | 'DELETE'; url: string; payload?: Record<string, unknown> }> = [
      { method: 'POST', url: '/api/admin/conversation-type/create-edit', payload: typeFields },
      { method: 'POST', url: '/api/admin/conversation-type/1/delete' },
      { method: 'POST', url: '/api/admin/conversation-type/1/duplicate' },
      { method: 'POST', url: '/api/admin/conversation-type/1/config', payload: {} },
      { method: 'GET', url: '/api/admin/conversation-phase/1/list' },
      { method: 'POST', url: '/api/admin/conversation-phase/create-edit', payload: { index: 0 } },
      { method: 'DELETE', url: '/api/admin/conversation-phase/1' },
    ];
    for (const route of routes) {
      expect((await t.request(route)).statusCode, `${route.method} ${route.url}`).toBe(401);
      expect((await t.request({ ...route, as: normal.cookie })).statusCode, `${route.method} ${route.url}`).toBe(403);
    }
  });
});

describe('GET /api/conversation-type/listt', () => {
  it('gives anonymous visitors and NORMAL users no prompts, and an ADMIN everything with sorted phases', async () => {
    const id = await createType({ ...typeFields, title: null, rolePrompt: 'SECRET role prompt' });
    await createPhase(id, 1);
    await createPhase(id, 0);
    for (const as of [undefined, normal.cookie]) {
      const res = await t.request({ method: 'GET', url: '/api/conversation-type/listt', as });
      expect(res.statusCode).toBe(200);
      const item = res.json().find((i: { id: number }) => i.id === id);
      expect(item).toEqual({ id, title: null, label: `Conversation type ${id}`, initialMessage: typeFields.initialMessage });
      expect(res.body).not.toContain('SECRET');
      expect(res.body).not.toContain(typeFields.errorPrompt);
    }
    const res = await t.request({ method: 'GET', url: '/api/conversation-type/listt', as: admin.cookie });
    const item = res.json().find((i: { id: number }) => i.id === id);
    expect(item).toMatchObject({ id, label: 'SECRET role prompt', rolePrompt: 'SECRET role prompt', errorPrompt: typeFields.errorPrompt, config: '{}', messagingAccountId: null });
    expect(item.conversation_phases.map((p: { index: number }) => p.index)).toEqual([0, 1]);
    expect(item.conversation_phases[0]).toMatchObject({ prompt: 'Goal 0', transitionPrompt: 'Move on 0', followUpPrompt: null, conversationType: { id } });
  });

  it('shows anonymous visitors a type by its public title when it has one, never its internal title; the team keeps the internal one', async () => {
    const id = await createType({ ...typeFields, title: 'Internal: roof leads Q3', publicTitle: 'Talk to Sunny Roofs' });
    const visitor = await t.request({ method: 'GET', url: '/api/conversation-type/listt' });
    expect(visitor.json().find((i: { id: number }) => i.id === id)).toMatchObject({ id, title: 'Talk to Sunny Roofs', label: 'Talk to Sunny Roofs' });
    expect(visitor.body).not.toContain('Internal: roof leads Q3');
    for (const as of [normal.cookie, admin.cookie]) {
      const res = await t.request({ method: 'GET', url: '/api/conversation-type/listt', as });
      expect(res.json().find((i: { id: number }) => i.id === id)).toMatchObject({ title: 'Internal: roof leads Q3' });
    }
  });
});

describe('conversation type config', () => {
  it('stores the raw text sent as text/plain or application/json and answers the spec notice', async () => {
    const id = await createType();
    const text = '{\n  "replyDebounceSeconds": 5,\n  "custom": ["kept"]\n}';
    for (const contentType of ['text/plain', 'application/json']) {
      const res = await t.request({ method: 'POST', url: `/api/admin/conversation-type/${id}/config`, as: admin.cookie, payload: text, headers: { 'content-type': contentType } });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({ message: 'Configuration saved successfully.' });
      const [row] = await t.ctx.db.select().from(conversationTypes).where(eq(conversationTypes.id, id));
      expect(row.config).toBe(text);
    }
    const ghl = await t.request({ method: 'POST', url: `/api/admin/conversation-type/${id}/config`, as: admin.cookie, json: '"GHL"' });
    expect(ghl.statusCode).toBe(200);
  });

  it('answers 400 for text that is not JSON, is empty, or has a wrong known field (named)', async () => {
    const id = await createType();
    // The same codes as a messaging account's config: INVALID_JSON when it does not parse, INVALID_CONFIG when it is wrong.
    const cases: Array<[string, string, string]> = [
      ['{not json', 'not valid JSON', 'INVALID_JSON'],
      ['', 'empty', 'INVALID_JSON'],
      ['{"followUp":{"max":"three"}}', 'followUp.max', 'INVALID_CONFIG'],
      ['{"temperature":5}', 'temperature', 'INVALID_CONFIG'],
      ['[1,2]', 'JSON object', 'INVALID_CONFIG'],
      ['"HubSpot"', 'JSON object', 'INVALID_CONFIG'],
    ];
    for (const [payload, text, code] of cases) {
      const res = await t.request({ method: 'POST', url: `/api/admin/conversation-type/${id}/config`, as: admin.cookie, payload, headers: { 'content-type': 'text/plain' } });
      expect(res.statusCode, payload).toBe(400);
      expect(res.json().error, payload).toContain(text);
      expect(res.json().code, payload).toBe(code);
    }
    const [row] = await t.ctx.db.select().from(conversationTypes).where(eq(conversationTypes.id, id));
    expect(row.config).toBe('{}');
  });

  it('answers 404 for an unknown type', async () => {
    const res = await t.request({ method: 'POST', url: '/api/admin/conversation-type/999999/config', as: admin.cookie, payload: '{}', headers: { 'content-type': 'text/plain' } });
    expect(res.statusCode).toBe(404);
  });
});

describe('conversation phases', () => {
  it('creates, lists by index, edits and deletes phases', async () => {
    const id = await createType();
    const second = await createPhase(id, 1, { followUpPrompt: 'Nudge' });
    const first = await createPhase(id, 0);
    const list = await t.request({ method: 'GET', url: `/api/admin/conversation-phase/${id}/list`, as: admin.cookie });
    expect(list.statusCode).toBe(200);
    expect(list.json().map((p: { id: number }) => p.id)).toEqual([first.id, second.id]);
    expect(list.json()[1]).toEqual({ id: second.id, index: 1, prompt: 'Goal 1', transitionPrompt: 'Move on 1', followUpPrompt: 'Nudge', conversationTypeId: id, conversationType: { id } });

    const edit = await t.request({
      method: 'POST',
      url: '/api/admin/conversation-phase/create-edit',
      as: admin.cookie,
      payload: { id: second.id, index: 1, prompt: 'Edited goal', transitionPrompt: 'Edited move', followUpPrompt: '', conversationType: { id } },
    });
    expect(edit.statusCode).toBe(200);
    expect(edit.json().conversationPhase).toMatchObject({ id: second.id, prompt: 'Edited goal', followUpPrompt: null });

    const del = await t.request({ method: 'DELETE', url: `/api/admin/conversation-phase/${first.id}`, as: admin.cookie });
    expect(del.statusCode).toBe(200);
    const after = await t.request({ method: 'GET', url: `/api/admin/conversation-phase/${id}/list`, as: admin.cookie });
    expect(after.json().map((p: { id: number }) => p.id)).toEqual([second.id]);
    expect((await t.request({ method: 'DELETE', url: `/api/admin/conversation-phase/${first.id}`, as: admin.cookie })).statusCode).toBe(404);
  });

  it('answers 400 for a missing prompt, a negative or fractional index, or a missing type', async () => {
    const id = await createType();
    const payloads = [
      { index: 0, transitionPrompt: 't', conversationType: { id } },
      { index: -1, prompt: 'p', transitionPrompt: 't', conversationType: { id } },
      { index: 1.5, prompt: 'p', transitionPrompt: 't', conversationType: { id } },
      { index: 0, prompt: 'p', transitionPrompt: 't' },
    ];
    for (const payload of payloads) {
      const res = await t.request({ method: 'POST', url: '/api/admin/conversation-phase/create-edit', as: admin.cookie, payload });
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
    }
    const res = await t.request({ method: 'POST', url: '/api/admin/conversation-phase/create-edit', as: admin.cookie, payload: payloads[0] });
    expect(res.json().error).toContain('prompt');
    expect((await t.request({ method: 'GET', url: '/api/admin/conversation-phase/abc/list', as: admin.cookie })).statusCode).toBe(400);
  });

  it('answers 404 for an unknown type or phase', async () => {
    const id = await createType();
    const unknownType = await t.request({ method: 'POST', url: '/api/admin/conversation-phase/create-edit', as: admin.cookie, payload: { index: 0, prompt: 'p', transitionPrompt: 't', conversationType: { id: 999999 } } });
    expect(unknownType.statusCode).toBe(404);
    const unknownPhase = await t.request({ method: 'POST', url: '/api/admin/conversation-phase/create-edit', as: admin.cookie, payload: { id: 999999, index: 0, prompt: 'p', transitionPrompt: 't', conversationType: { id } } });
    expect(unknownPhase.statusCode).toBe(404);
    expect(unknownPhase.json().code).toBe('CONVERSATION_PHASE_NOT_FOUND');
    expect((await t.request({ method: 'GET', url: '/api/admin/conversation-phase/999999/list', as: admin.cookie })).statusCode).toBe(404);
  });
});

describe('duplicate and delete', () => {
  it('duplicates a type with "[D] " title, its fields, config and phases', async () => {
    const id = await createType();
    await t.request({ method: 'POST', url: `/api/admin/conversation-type/${id}/config`, as: admin.cookie, payload: '{"model":"gpt-4o"}', headers: { 'content-type': 'text/plain' } });
    await createPhase(id, 0, { followUpPrompt: 'Nudge 0' });
    await createPhase(id, 1);
    const res = await t.request({ method: 'POST', url: `/api/admin/conversation-type/${id}/duplicate`, as: admin.cookie });
    expect(res.statusCode).toBe(200);
    const copyId = res.json().conversationType.id;
    expect(copyId).not.toBe(id);
    const copy = (await t.request({ method: 'GET', url: `/api/conversation-type/${copyId}`, as: admin.cookie })).json();
    expect(copy).toMatchObject({ title: '[D] Solar leads', rolePrompt: typeFields.rolePrompt, errorPrompt: typeFields.errorPrompt, initialMessage: typeFields.initialMessage, config: '{"model":"gpt-4o"}' });
    expect(copy.conversation_phases.map((p: { index: number; prompt: string; transitionPrompt: string; followUpPrompt: string | null }) => [p.index, p.prompt, p.transitionPrompt, p.followUpPrompt])).toEqual([
      [0, 'Goal 0', 'Move on 0', 'Nudge 0'],
      [1, 'Goal 1', 'Move on 1', null],
    ]);
    expect((await t.request({ method: 'POST', url: '/api/admin/conversation-type/999999/duplicate', as: admin.cookie })).statusCode).toBe(404);
  });

  it('deletes a type and its phases; 404 afterwards and for unknown ids, 400 for a bad id', async () => {
    const id = await createType();
    await createPhase(id, 0);
    const res = await t.request({ method: 'POST', url: `/api/admin/conversation-type/${id}/delete`, as: admin.cookie });
    expect(res.statusCode).toBe(200);
    expect((await t.request({ method: 'GET', url: `/api/conversation-type/${id}`, as: admin.cookie })).statusCode).toBe(404);
    const phases = await t.ctx.db.select().from(conversationPhases).where(eq(conversationPhases.conversationTypeId, id));
    expect(phases).toEqual([]);
    expect((await t.request({ method: 'POST', url: `/api/admin/conversation-type/${id}/delete`, as: admin.cookie })).statusCode).toBe(404);
    expect((await t.request({ method: 'POST', url: '/api/admin/conversation-type/0/delete', as: admin.cookie })).statusCode).toBe(400);
  });
});

describe('demo seed', () => {
  it('adds the demo playbook with three phases only when no type exists, and only once', async () => {
    const fresh = await buildTestApp();
    try {
      await Promise.all([seedDemoData(fresh.ctx), seedDemoData(fresh.ctx)]);
      await seedDemoData(fresh.ctx);
      const types = await fresh.ctx.db.select().from(conversationTypes);
      expect(types).toHaveLength(1);
      expect(types[0]).toMatchObject({ title: DEMO_PLAYBOOK.title, initialMessage: DEMO_PLAYBOOK.initialMessage });
      const phases = await fresh.ctx.db.select().from(conversationPhases).where(eq(conversationPhases.conversationTypeId, types[0].id));
      expect(phases.map((p) => p.index).sort()).toEqual([0, 1, 2]);
      expect(phases.every((p) => p.prompt && p.transitionPrompt && p.followUpPrompt)).toBe(true);
    } finally {
      await fresh.close();
    }
    // An instance that already has types (this one) gets no demo.
    await seedDemoData(t.ctx);
    const demo = await t.ctx.db.select().from(conversationTypes).where(eq(conversationTypes.title, DEMO_PLAYBOOK.title));
    expect(demo).toEqual([]);
  });
});

describe('isPublic (issue 12: the start page lists only public types)', () => {
  const listIds = async (as?: string) =>
    ((await t.request({ method: 'GET', url: '/api/conversation-type/listt', as })).json() as { id: number }[]).map((i) => i.id);
  const start = (conversationTypeId: number, as?: string) =>
    t.request({ method: 'POST', url: '/api/conversation/new', as, payload: { conversationTypeId } });

  it('is true for a new type, false for a duplicate, editable, and shown to an ADMIN only', async () => {
    const id = await createType();
    const read = await t.request({ method: 'GET', url: `/api/conversation-type/${id}`, as: admin.cookie });
    expect(read.json().isPublic).toBe(true);
    const dup = await t.request({ method: 'POST', url: `/api/admin/conversation-type/${id}/duplicate`, as: admin.cookie });
    const copyId = dup.json().conversationType.id;
    expect((await t.request({ method: 'GET', url: `/api/conversation-type/${copyId}`, as: admin.cookie })).json().isPublic).toBe(false);

    // Edit without the flag keeps it; with the flag changes it.
    await createType({ ...typeFields, id, title: 'Renamed' });
    expect((await t.request({ method: 'GET', url: `/api/conversation-type/${id}`, as: admin.cookie })).json().isPublic).toBe(true);
    await createType({ ...typeFields, id, isPublic: false });
    expect((await t.request({ method: 'GET', url: `/api/conversation-type/${id}`, as: admin.cookie })).json().isPublic).toBe(false);
    const created = await createType({ ...typeFields, isPublic: false });
    expect((await t.request({ method: 'GET', url: `/api/conversation-type/${created}`, as: admin.cookie })).json().isPublic).toBe(false);

    for (const as of [undefined, normal.cookie]) {
      const ids = await listIds(as);
      expect(ids).not.toContain(id);
      expect(ids).not.toContain(copyId);
      const res = await t.request({ method: 'GET', url: '/api/conversation-type/listt', as });
      expect(res.body).not.toContain('isPublic');
    }
    const adminIds = await listIds(admin.cookie);
    expect(adminIds).toEqual(expect.arrayContaining([id, copyId]));
  });

  it('POST /api/conversation/new refuses a private type with 404 to visitors and NORMAL users; an ADMIN may start it', async () => {
    const id = await createType({ ...typeFields, isPublic: false });
    for (const as of [undefined, normal.cookie]) {
      const res = await start(id, as);
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ error: 'Conversation type not found', code: 'CONVERSATION_TYPE_NOT_FOUND' });
    }
    expect((await start(id, admin.cookie)).statusCode).toBe(201);
    const pub = await createType();
    expect((await start(pub)).statusCode).toBe(201);
  });

  it('answers 400 for a non-boolean isPublic', async () => {
    const res = await t.request({ method: 'POST', url: '/api/admin/conversation-type/create-edit', as: admin.cookie, payload: { ...typeFields, isPublic: 'yes' } });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toContain('isPublic');
  });
});
