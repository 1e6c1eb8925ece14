import { describe, expect, it } from 'vitest';
import { useTestApp, useUser } from '../../test/use-test-app.ts';

/** Canned replies (issue 24): everyone reads the list, only an ADMIN keeps it. */

const t = useTestApp();
const admin = useUser(t, 'ADMIN');
const member = useUser(t);

const call = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, as?: string, payload?: object) =>
  t.request({ method, url, as, payload });
const shortcut = () => `s-${Math.random().toString(36).slice(2, 10)}`;

describe('/api/canned-replies', () => {
  it('an ADMIN adds, changes and deletes a reply; a team member lists and uses it', async () => {
    const name = shortcut();
    const created = await call('POST', '/api/canned-replies', admin.cookie, { shortcut: ` ${name.toUpperCase()} `, text: ' Our prices start at $49 a month. ' });
    expect(created.statusCode, created.body).toBe(201);
    const reply = created.json();
    expect(reply).toMatchObject({ shortcut: name, text: 'Our prices start at $49 a month.' });

    const listed = await call('GET', '/api/canned-replies', member.cookie);
    expect(listed.statusCode).toBe(200);
    expect(listed.json()).toContainEqual(expect.objectContaining({ id: reply.id, shortcut: name }));

    const changed = await call('PATCH', `/api/canned-replies/${reply.id}`, admin.cookie, { text: 'Prices start at $59.' });
    expect(changed.statusCode, changed.body).toBe(200);
    expect(changed.json()).toMatchObject({ shortcut: name, text: 'Prices start at $59.' });

    const deleted = await call('DELETE', `/api/canned-replies/${reply.id}`, admin.cookie);
    expect(deleted.statusCode).toBe(200);
    expect((await call('GET', '/api/canned-replies', member.cookie)).json().map((r: { id: number }) => r.id)).not.toContain(reply.id);
  });

  it('refuses a team member writing (403), no session (401), bad input (400 in words), a taken shortcut (409), a gone reply (404)', async () => {
    const name = shortcut();
    expect((await call('GET', '/api/canned-replies')).statusCode).toBe(401);
    const refused = await call('POST', '/api/canned-replies', member.cookie, { shortcut: name, text: 'Hi' });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().code).toBe('FORBIDDEN');
    expect((await call('POST', '/api/canned-replies', undefined, { shortcut: name, text: 'Hi' })).statusCode).toBe(401);

    const bad = await call('POST', '/api/canned-replies', admin.cookie, { shortcut: 'two words', text: 'Hi' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toMatch(/letters, digits and dashes/);
    expect((await call('POST', '/api/canned-replies', admin.cookie, { shortcut: name, text: '   ' })).statusCode).toBe(400);

    const first = (await call('POST', '/api/canned-replies', admin.cookie, { shortcut: name, text: 'Hi' })).json();
    const taken = await call('POST', '/api/canned-replies', admin.cookie, { shortcut: name, text: 'Hello' });
    expect(taken.statusCode).toBe(409);
    expect(taken.json().code).toBe('CANNED_REPLY_EXISTS');
    const other = (await call('POST', '/api/canned-replies', admin.cookie, { shortcut: shortcut(), text: 'Other' })).json();
    expect((await call('PATCH', `/api/canned-replies/${other.id}`, admin.cookie, { shortcut: name })).json().code).toBe('CANNED_REPLY_EXISTS');
    // Saving a reply under its own shortcut is no conflict.
    expect((await call('PATCH', `/api/canned-replies/${first.id}`, admin.cookie, { shortcut: name, text: 'Hi again' })).statusCode).toBe(200);
    expect((await call('PATCH', `/api/canned-replies/${first.id}`, admin.cookie, {})).statusCode).toBe(400);

    expect((await call('PATCH', `/api/canned-replies/${first.id}`, member.cookie, { text: 'Mine' })).statusCode).toBe(403);
    expect((await call('DELETE', `/api/canned-replies/${first.id}`, member.cookie)).statusCode).toBe(403);
    expect((await call('DELETE', `/api/canned-replies/${first.id}`, admin.cookie)).statusCode).toBe(200);
    const gone = await call('DELETE', `/api/canned-replies/${first.id}`, admin.cookie);
    expect(gone.statusCode).toBe(404);
    expect(gone.json().code).toBe('CANNED_REPLY_NOT_FOUND');
    expect((await call('PATCH', `/api/canned-replies/${first.id}`, admin.cookie, { text: 'x' })).statusCode).toBe(404);
  });
});
