import { screen } from '@testing-library/react';
import { beforeAll, expect, it } from 'vitest';
import { stubMissingBrowserApis } from '../../../test/browser-stubs.ts';
import { renderApp, testQueryClient } from '../../../test/render-app.tsx';
import '../../../test/stub-fetch.ts';
import { sessionQueryKey } from '../../../lib/auth.ts';
import { metaKeys, type MetaPublicConfig } from '../api/meta.ts';
import { ConnectButtons } from './connect-buttons.tsx';

beforeAll(stubMissingBrowserApis);

const config = (canConnect: MetaPublicConfig['canConnect']): MetaPublicConfig => ({
  metaAppId: canConnect?.FACEBOOK ? '111' : null,
  instagramAppId: null,
  facebookDialogUrl: 'https://www.facebook.com/v27.0/dialog/oauth',
  instagramDialogUrl: 'https://www.instagram.com/oauth/authorize',
  canConnect,
});

/** The buttons for a reader of `role`, with the server's Meta config already known. */
function renderFor(role: 'ADMIN' | 'NORMAL', canConnect: MetaPublicConfig['canConnect']) {
  const client = testQueryClient();
  client.setQueryData(sessionQueryKey, { email: 'me@example.com', role } as never);
  client.setQueryData(metaKeys.config(), config(canConnect));
  renderApp(<ConnectButtons />, { client });
}

const button = (name: string) => screen.getByRole('button', { name }) as HTMLButtonElement;

it('without the Meta app every connect button is disabled and a team member is told to ask their admin', () => {
  renderFor('NORMAL', { INSTAGRAM: false, FACEBOOK: false, WHATSAPP: false });
  for (const name of ['Connect Instagram', 'Connect Facebook Page', 'Connect WhatsApp']) {
    expect(button(name).disabled).toBe(true);
    expect(button(name).getAttribute('aria-describedby')).toBe('connect-not-configured');
  }
  const reason = screen.getByTestId('connect-not-configured').textContent;
  expect(reason).toBe('Connecting accounts is not set up on this server yet. Ask your admin.');
  expect(reason).not.toMatch(/META_APP_ID|server:/);
});

it('an ADMIN reads what to set on the server', () => {
  renderFor('ADMIN', { INSTAGRAM: false, FACEBOOK: false, WHATSAPP: false });
  expect(screen.getByTestId('connect-not-configured').textContent).toMatch(/set META_APP_ID and META_APP_SECRET/);
});

it('with the Meta app the buttons work and no reason shows', () => {
  renderFor('NORMAL', { INSTAGRAM: true, FACEBOOK: true, WHATSAPP: true });
  expect(button('Connect Facebook Page').disabled).toBe(false);
  expect(screen.queryByTestId('connect-not-configured')).toBeNull();
});
