import { describe, expect, it } from 'vitest';
import { linkIn, startSmtpFake } from '../../test/fakes/smtp-fake.ts';
import { useFake, useTestApp, useUser } from '../../test/use-test-app.ts';

/** Team management (issue 24): list, invite by link (mailed through SMTP), role, deactivate. */

const smtp = useFake(() => startSmtpFake());
const t = useTestApp({ env: () => ({ SMTP_URL: smtp.url, MAIL_FROM: 'Sales Agent <accounts@example.com>' }) });
const admin = useUser(t, 'ADMIN');
const normal = useUser(t);

const invite = (body: unknown, as?: string) => t.request({ method: 'POST', url: '/api/admin/users/invite', payload: body as object, as });
const patchUser = (id: number, body: unknown, as?: string) => t.request({ method: 'PATCH', url: `/api/admin/users/${id}`, payload: body as object, as });

function paramsOf(link: string) {
  const url = new URL(link);
  return { email: url.searchParams.get('email')!, token: url.searchParams.get('token')! };
}

describe('POST /api/admin/users/invite', () => {
  it('creates the user with the role, mails a one-time set-password link that signs them in', async () => {
    const res = await invite({ email: 'New.Teammate@Example.com', role: 'NORMAL' }, admin.cookie);
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json();
    expect(body).toMatchObject({ mailed: true, user: { email: 'new.teammate@example.com', role: 'NORMAL', active: true, pending: true } });
    const mail = await smtp.nextMailTo('new.teammate@example.com');
    expect(linkIn(mail)).toBe(body.link);

    const list = await t.request({ method: 'GET', url: '/api/admin/users', as: admin.cookie });
    expect(list.statusCode).toBe(200);
    expect(list.json().find((u: { email: string }) => u.email === 'new.teammate@example.com')).toMatchObject({ pending: true, role: 'NORMAL' });

    const { email, token } = paramsOf(body.link);
    const set = await t.request({ method: 'POST', url: '/api/user/set-password', payload: { email, token, password: 'a-long-good-passphrase' } });
    expect(set.statusCode, set.body).toBe(200);
    const login = await t.request({ method: 'POST', url: '/api/user/login', payload: { email, password: 'a-long-good-passphrase' } });
    expect(login.statusCode).toBe(200);
    // The link works once.
    const again = await t.request({ method: 'POST', url: '/api/user/set-password', payload: { email, token, password: 'another-good-passphrase' } });
    expect(again.statusCode).toBe(403);
    // Now the email has an account.
    expect((await invite({ email, role: 'NORMAL' }, admin.cookie)).statusCode).toBe(409);
  });

  it('refuses a bad email or role (400), a NORMAL user (403), anonymous (401)', async () => {
    expect((await invite({ email: 'not-an-email', role: 'NORMAL' }, admin.cookie)).statusCode).toBe(400);
    expect((await invite({ email: 'x@example.com', role: 'OWNER' }, admin.cookie)).statusCode).toBe(400);
    expect((await invite({ email: 'x@example.com', role: 'NORMAL' }, normal.cookie)).statusCode).toBe(403);
    expect((await invite({ email: 'x@example.com', role: 'NORMAL' })).statusCode).toBe(401);
    expect((await t.request({ method: 'GET', url: '/api/admin/users', as: normal.cookie })).statusCode).toBe(403);
  });
});

describe('PATCH /api/admin/users/{id}', () => {
  it('deactivating ends the sessions at once and refuses the login; activating lets them back', async () => {
    const res = await invite({ email: 'leaving@example.com', role: 'NORMAL' }, admin.cookie);
    const { email, token } = paramsOf(res.json().link);
    const set = await t.request({ method: 'POST', url: '/api/user/set-password', payload: { email, token, password: 'a-long-good-passphrase' } });
    const cookie = String(set.headers['set-cookie']).split(';')[0];
    expect((await t.request({ method: 'POST', url: '/api/user/get-session', as: cookie })).statusCode).toBe(200);

    const off = await patchUser(res.json().user.id, { active: false }, admin.cookie);
    expect(off.statusCode, off.body).toBe(200);
    expect(off.json()).toMatchObject({ active: false });
    expect((await t.request({ method: 'POST', url: '/api/user/get-session', as: cookie })).statusCode).toBe(401);
    const refused = await t.request({ method: 'POST', url: '/api/user/login', payload: { email, password: 'a-long-good-passphrase' } });
    expect(refused.statusCode).toBe(401);
    expect(refused.json().error).toContain('deactivated');

    expect((await patchUser(res.json().user.id, { active: true, role: 'ADMIN' }, admin.cookie)).json()).toMatchObject({ active: true, role: 'ADMIN' });
    expect((await t.request({ method: 'POST', url: '/api/user/login', payload: { email, password: 'a-long-good-passphrase' } })).statusCode).toBe(200);
  });

  it('refuses changing yourself (409), an unknown user (404), an empty body (400), a NORMAL user (403)', async () => {
    expect((await patchUser(admin.id, { active: false }, admin.cookie)).json().code).toBe('CANNOT_CHANGE_SELF');
    expect((await patchUser(admin.id, { role: 'NORMAL' }, admin.cookie)).statusCode).toBe(409);
    expect((await patchUser(999_999, { active: false }, admin.cookie)).statusCode).toBe(404);
    expect((await patchUser(normal.id, {}, admin.cookie)).statusCode).toBe(400);
    expect((await patchUser(normal.id, { active: false }, normal.cookie)).statusCode).toBe(403);
    expect((await patchUser(normal.id, { active: false })).statusCode).toBe(401);
  });
});
