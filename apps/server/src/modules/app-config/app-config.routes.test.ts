import { describe, expect, it } from 'vitest';
import { useTestApp, useUser } from '../../test/use-test-app.ts';

const t = useTestApp();
const admin = useUser(t, 'ADMIN');
const normal = useUser(t);

describe('app config', () => {
  it('saves a key as ADMIN and reads it back by key, anonymously', async () => {
    const save = await t.request({ method: 'POST', url: '/api/admin/app-config', as: admin.cookie, payload: { key: 'registerHTML', value: '<b>Welcome</b>' } });
    expect(save.statusCode).toBe(200);
    expect(save.json()).toEqual({ message: 'Register page HTML saved.' });
    const read = await t.request({ method: 'GET', url: '/api/app-config?key=registerHTML' });
    expect(read.json()).toEqual({ values: [{ key: 'registerHTML', value: '<b>Welcome</b>' }] });
    await t.request({ method: 'POST', url: '/api/admin/app-config', as: admin.cookie, payload: { key: 'registerHTML', value: 'v2' } });
    const again = await t.request({ method: 'GET', url: '/api/app-config?key=registerHTML' });
    expect(again.json().values[0].value).toBe('v2');
  });

  it('answers an empty list for a key never saved and 400 for an unknown key', async () => {
    expect((await t.request({ method: 'GET', url: '/api/app-config?key=onboardingHTML' })).json()).toEqual({ values: [] });
    expect((await t.request({ method: 'GET', url: '/api/app-config?key=nope' })).statusCode).toBe(400);
  });

  it('is 401 anonymous and 403 NORMAL on the admin save, before looking at the body', async () => {
    const anon = await t.request({ method: 'POST', url: '/api/admin/app-config', json: '{oops' });
    expect(anon.statusCode).toBe(401);
    expect(anon.json()).toMatchObject({ code: 'UNAUTHORIZED' });
    const rep = await t.request({ method: 'POST', url: '/api/admin/app-config', as: normal.cookie, payload: { key: 'registerHTML', value: 'x' } });
    expect(rep.statusCode).toBe(403);
    expect(rep.json()).toMatchObject({ code: 'FORBIDDEN' });
  });

  it('answers 400 for a wrong type, unknown key, a NUL character or malformed JSON', async () => {
    for (const payload of [{ key: 'registerHTML', value: 5 }, { key: 'nope', value: 'x' }, {}, { key: 'supportMessage', value: 'a\u0000b' }]) {
      const res = await t.request({ method: 'POST', url: '/api/admin/app-config', as: admin.cookie, payload });
      expect(res.statusCode).toBe(400);
    }
    const bad = await t.request({ method: 'POST', url: '/api/admin/app-config', as: admin.cookie, json: '{' });
    expect(bad.statusCode).toBe(400);
  });
});

describe('health and unknown routes', () => {
  it('reports health', async () => {
    const res = await t.request({ method: 'GET', url: '/api/health' });
    expect(res.json()).toMatchObject({ status: 'ok' });
  });
  it('answers JSON 404 for an unknown API route', async () => {
    const res = await t.request({ method: 'GET', url: '/api/nope' });
    expect(res.statusCode).toBe(404);
    expect(res.json().code).toBe('ROUTE_NOT_FOUND');
  });
  it('serves the OpenAPI document', async () => {
    const res = await t.request({ method: 'GET', url: '/api/docs/json' });
    expect(res.statusCode).toBe(200);
    expect(res.json().paths['/api/user/login']).toBeDefined();
  });
});
