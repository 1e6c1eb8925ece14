import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { stubMissingBrowserApis } from '../../../test/browser-stubs.ts';
import RegisterPage from './register-page.tsx';

/** The register page under REGISTRATION=open|invite|closed (docs/deployment.md), the server faked at fetch. */
beforeAll(stubMissingBrowserApis);
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const CLOSED = 'Registration is closed on this server. Ask an administrator to create your account.';
const INVITE = 'Registration on this server is by invitation only. Ask an administrator for an invitation link.';

function server(registration: { mode: string; message: string | null }, onRegister?: (body: unknown) => Response) {
  const fetchFake = vi.fn(async (url: string, init?: RequestInit) => {
    const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
    if (url.startsWith('/api/user/registration')) return json(registration);
    if (url.startsWith('/api/user/register') && onRegister) return onRegister(JSON.parse(String(init?.body)));
    if (url.startsWith('/api/meta-api/config')) return json({ appId: null });
    return json({});
  });
  vi.stubGlobal('fetch', fetchFake);
  return fetchFake;
}

function renderAt(path: string) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return render(
    <MantineProvider>
      <QueryClientProvider client={client}>
        <MemoryRouter initialEntries={[path]}>
          <RegisterPage />
        </MemoryRouter>
      </QueryClientProvider>
    </MantineProvider>,
  );
}

describe('RegisterPage', () => {
  it('shows the sentence instead of the form when registration is closed', async () => {
    server({ mode: 'closed', message: CLOSED });
    renderAt('/user/register');
    expect((await screen.findByRole('alert')).textContent).toContain(CLOSED);
    expect(screen.queryByRole('button', { name: 'Register' })).toBeNull();
  });

  it('with invite and no invitation, shows the sentence; with an invitation link, the form for that email', async () => {
    server({ mode: 'invite', message: INVITE });
    renderAt('/user/register');
    expect((await screen.findByRole('alert')).textContent).toContain(INVITE);
    cleanup();

    const fetchFake = server({ mode: 'invite', message: INVITE }, () =>
      new Response(JSON.stringify({ email: 'new@example.com', role: 'NORMAL' }), { status: 201, headers: { 'content-type': 'application/json' } }),
    );
    renderAt('/user/register?invitation=tok123&email=new%40example.com');
    const button = await screen.findByRole('button', { name: 'Register' });
    expect((screen.getByLabelText(/Email/) as HTMLInputElement).value).toBe('new@example.com');
    expect(screen.queryByRole('alert')).toBeNull();
    for (const label of [/^Password/, /Confirm/]) fireEvent.change(screen.getByLabelText(label), { target: { value: 'password123' } });
    fireEvent.click(button);
    await vi.waitFor(() => expect(fetchFake.mock.calls.some(([url]) => String(url).startsWith('/api/user/register'))).toBe(true));
    const [, init] = fetchFake.mock.calls.find(([url]) => String(url) === '/api/user/register')!;
    expect(JSON.parse(String(init!.body))).toEqual({ email: 'new@example.com', password: 'password123', invitation: 'tok123' });
  });

  it("shows a 403's sentence in place when the server refuses the registration", async () => {
    server({ mode: 'invite', message: INVITE }, () =>
      new Response(JSON.stringify({ error: 'This invitation link is not valid for this email.', code: 'INVITATION_INVALID' }), { status: 403, headers: { 'content-type': 'application/json' } }),
    );
    renderAt('/user/register?invitation=old&email=new%40example.com');
    const button = await screen.findByRole('button', { name: 'Register' });
    for (const label of [/^Password/, /Confirm/]) fireEvent.change(screen.getByLabelText(label), { target: { value: 'password123' } });
    fireEvent.click(button);
    expect((await screen.findByRole('alert')).textContent).toContain('This invitation link is not valid for this email.');
  });
});
