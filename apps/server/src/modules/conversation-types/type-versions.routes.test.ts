import { describe, expect, it } from 'vitest';
import { loadReplyContext } from '../../conversations/conversation-store.ts';
import { useTestApp, useUser } from '../../test/use-test-app.ts';

const t = useTestApp();
const admin = useUser(t, 'ADMIN');
const normal = useUser(t);

async function call(method: 'GET' | 'POST', url: string, payload?: unknown, as: string | undefined = admin.cookie) {
  return t.request({ method, url, as, ...(payload !== undefined ? { payload: payload as object } : {}) });
}

async function createType(rolePrompt = 'You are Sam.\nYou sell solar panels.'): Promise<number> {
  const res = await call('POST', '/api/admin/conversation-type/create-edit', { title: 'Solar', rolePrompt, errorPrompt: 'Sorry.', initialMessage: 'Hi!' });
  expect(res.statusCode, res.body).toBe(200);
  const id = res.json().conversationType.id as number;
  for (const index of [0, 1]) {
    const phase = await call('POST', '/api/admin/conversation-phase/create-edit', { index, prompt: `Goal ${index}`, transitionPrompt: `Move on ${index}`, conversationType: { id } });
    expect(phase.statusCode, phase.body).toBe(200);
  }
  return id;
}

async function startConversation(typeId: number): Promise<{ id: number; uuid: string }> {
  const res = await call('POST', '/api/conversation/new', { conversationTypeId: typeId });
  expect(res.statusCode, res.body).toBe(201);
  const detail = await call('GET', `/api/conversation/${res.json().uuid}`);
  return { id: detail.json().id, uuid: res.json().uuid };
}

describe('playbook versions', () => {
  it('a never-published type runs on its draft; publish pins new conversations; a running one keeps its version', async () => {
    const typeId = await createType();
    const before = await startConversation(typeId);
    expect((await call('GET', `/api/conversation/${before.uuid}`)).json().typeVersion).toBeNull();

    const v1 = await call('POST', `/api/admin/conversation-type/${typeId}/versions/publish`, { note: 'first' });
    expect(v1.statusCode, v1.body).toBe(200);
    expect(v1.json()).toEqual({ version: 1 });
    const pinned = await startConversation(typeId);
    expect((await call('GET', `/api/conversation/${pinned.uuid}`)).json().typeVersion).toBe(1);

    // The draft changes and v2 is published: the v1 conversation still runs on v1's prompts.
    await call('POST', '/api/admin/conversation-type/create-edit', { id: typeId, title: 'Solar', rolePrompt: 'You are Alex.\nYou sell solar panels.', errorPrompt: 'Sorry.' });
    expect((await call('POST', `/api/admin/conversation-type/${typeId}/versions/publish`, {})).json()).toEqual({ version: 2 });
    const loaded = await loadReplyContext(t.ctx, pinned.id);
    expect(loaded?.type?.rolePrompt).toBe('You are Sam.\nYou sell solar panels.');
    expect(loaded?.phases.map((p) => p.prompt)).toEqual(['Goal 0', 'Goal 1']);
    const newer = await startConversation(typeId);
    expect((await loadReplyContext(t.ctx, newer.id))?.type?.rolePrompt).toBe('You are Alex.\nYou sell solar panels.');

    const list = await call('GET', `/api/admin/conversation-type/${typeId}/versions`);
    expect(list.json()).toMatchObject({ current: 2, versions: [{ version: 2, note: null }, { version: 1, note: 'first', createdBy: admin.email }] });
    const one = await call('GET', `/api/admin/conversation-type/${typeId}/versions/1`);
    expect(one.json()).toMatchObject({ rolePrompt: 'You are Sam.\nYou sell solar panels.', phases: [{ index: 0 }, { index: 1 }] });
  });

  it('diffs two versions line by line and by config key, and restores an old version as the draft', async () => {
    const typeId = await createType();
    await call('POST', `/api/admin/conversation-type/${typeId}/versions/publish`, {});
    await call('POST', '/api/admin/conversation-type/create-edit', { id: typeId, title: 'Solar', rolePrompt: 'You are Sam.\nYou sell heat pumps.', errorPrompt: 'Sorry.' });
    const config = await t.request({ method: 'POST', url: `/api/admin/conversation-type/${typeId}/config`, as: admin.cookie, payload: '{"temperature":0.2}', headers: { 'content-type': 'text/plain' } });
    expect(config.statusCode, config.body).toBe(200);
    const diff = await call('GET', `/api/admin/conversation-type/${typeId}/versions/diff?from=1&to=draft`);
    expect(diff.statusCode, diff.body).toBe(200);
    const role = diff.json().prompts.find((p: { field: string }) => p.field === 'rolePrompt');
    expect(role).toEqual({
      field: 'rolePrompt',
      changed: true,
      lines: [
        { op: ' ', text: 'You are Sam.' },
        { op: '-', text: 'You sell solar panels.' },
        { op: '+', text: 'You sell heat pumps.' },
      ],
    });
    expect(diff.json().config).toEqual([{ key: 'temperature', before: null, after: '0.2' }]);

    const restored = await call('POST', `/api/admin/conversation-type/${typeId}/versions/1/restore`);
    expect(restored.statusCode, restored.body).toBe(200);
    const type = await call('GET', `/api/conversation-type/${typeId}`);
    expect(type.json()).toMatchObject({ rolePrompt: 'You are Sam.\nYou sell solar panels.', config: '{}' });
    expect(type.json().conversation_phases).toHaveLength(2);
    // Restoring makes a draft, not a version.
    expect((await call('GET', `/api/admin/conversation-type/${typeId}/versions`)).json().current).toBe(1);
  });

  it('answers 404 for an unknown type or version, 400 for a bad version, 401/403 for non-admins', async () => {
    const typeId = await createType();
    expect((await call('GET', `/api/admin/conversation-type/999999/versions`)).json().code).toBe('CONVERSATION_TYPE_NOT_FOUND');
    const missing = await call('GET', `/api/admin/conversation-type/${typeId}/versions/7`);
    expect(missing.statusCode).toBe(404);
    expect(missing.json().code).toBe('TYPE_VERSION_NOT_FOUND');
    expect((await call('POST', `/api/admin/conversation-type/${typeId}/versions/7/restore`)).statusCode).toBe(404);
    expect((await call('POST', `/api/admin/conversation-type/999999/versions/publish`, {})).statusCode).toBe(404);
    expect((await call('GET', `/api/admin/conversation-type/${typeId}/versions/latest`)).statusCode).toBe(400);
    expect((await call('GET', `/api/admin/conversation-type/${typeId}/versions`, undefined, normal.cookie)).statusCode).toBe(403);
    expect((await t.request({ method: 'POST', url: `/api/admin/conversation-type/${typeId}/versions/publish`, payload: {} })).statusCode).toBe(401);
  });
});
