import { expect, test } from '@playwright/test';
import { signInAsAdmin } from './support/fixtures.ts';

/**
 * The first-screen documents (apps/web/vite-plugins/first-screens.ts, served by the server's web-app.ts):
 * the pages people open directly draw their header and h1 before any JavaScript runs, and the app replaces
 * that shell without leaving a second h1 or main landmark behind.
 */
test.describe('first screen before the JavaScript', () => {
  test.use({ javaScriptEnabled: false });

  for (const [url, title] of [
    ['/', 'Start new conversation'],
    ['/conversation/new?conversationType=1', 'Start new conversation'],
    ['/login', 'Login'],
    ['/conversation/list', 'Conversations'],
  ]) {
    test(`${url} shows the brand and its title`, async ({ page }) => {
      await page.goto(url);
      await expect(page.getByRole('heading', { level: 1 })).toHaveText(title);
      await expect(page.getByRole('link', { name: 'Sales Agent home' })).toHaveAttribute('href', '/');
      await expect(page).toHaveTitle(`${title} · Sales Agent`);
    });
  }

  test('/login draws its form, the Register link and the footer', async ({ page }) => {
    await page.goto('/login');
    // Pictures of the fields until the app's form replaces them: nothing to type into yet.
    await expect(page.getByText('Email', { exact: true })).toBeVisible();
    await expect(page.getByRole('textbox')).toHaveCount(0);
    await expect(page.getByRole('link', { name: 'Register' })).toHaveAttribute('href', '/register');
    await expect(page.getByRole('contentinfo').getByRole('link', { name: 'Terms of Service' })).toBeVisible();
    await expect(page.getByRole('contentinfo')).toContainText('Sales Agent');
  });

  test('other paths get the plain document', async ({ page }) => {
    await page.goto('/register');
    await expect(page.locator('#root')).toBeEmpty();
    await expect(page).toHaveTitle('Sales Agent');
  });
});

test.describe('first screen with the JavaScript', () => {
  test('the app replaces the shell and uses the preloaded list of conversation types', async ({ page }) => {
    const typeRequests: string[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname === '/api/conversation-type/listt') typeRequests.push(request.url());
    });
    await page.goto('/');
    await expect(page.getByRole('button', { name: 'Start new conversation' })).toBeEnabled();
    await expect(page.locator('.fs')).toHaveCount(0);
    await expect(page.getByRole('heading', { level: 1 })).toHaveCount(1);
    await expect(page.getByRole('main')).toHaveCount(1);
    await expect(page.getByRole('banner')).toHaveCount(1);
    // The document's <link rel=preload> made the one request; the app's fetch took its answer.
    expect(typeRequests).toHaveLength(1);
  });

  test('the login page renders in place of its shell', async ({ page }) => {
    await page.goto('/login');
    await expect(page.getByLabel('Email')).toBeVisible();
    await expect(page.getByRole('heading', { level: 1 })).toHaveCount(1);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Login');
    await expect(page.locator('.fs')).toHaveCount(0);
    await expect(page.getByRole('contentinfo')).toHaveCount(1);
    await expect(page.getByRole('main').getByRole('link', { name: 'Register' })).toHaveCount(1);
  });

  test('the inbox: one early session check, the preloaded list drawn with the page, the live stream after it', async ({ page }) => {
    await signInAsAdmin(page);
    const seen: string[] = [];
    page.on('request', (request) => {
      const { pathname } = new URL(request.url());
      if (pathname.startsWith('/api/') || pathname.includes('/session-check-')) seen.push(`${request.method()} ${pathname.replace(/-[\w-]{8}\.js$/, '.js')}`);
    });
    // Whether a loader was ever drawn between the shell and the list (the list is prefetched before the first render).
    await page.addInitScript(() => {
      new MutationObserver(() => {
        if (document.querySelector('[aria-label="Loading conversations"], [aria-label="Checking your session"]')) document.documentElement.dataset.sawLoader = 'yes';
      }).observe(document, { subtree: true, childList: true });
    });
    await page.goto('/conversation/list');
    await expect(page.getByTestId('empty-state').or(page.getByTestId('inbox-row').first())).toBeVisible();
    await expect(page.getByRole('button', { name: /User menu/ })).toBeVisible();
    await expect.poll(() => seen.includes('GET /api/conversation/list/events')).toBe(true);
    expect(await page.evaluate(() => document.documentElement.dataset.sawLoader ?? 'no')).toBe('no');
    // The document's async script asked for the session; the app took its answer instead of asking again.
    expect(seen.filter((r) => r === 'POST /api/user/get-session')).toHaveLength(1);
    expect(seen.indexOf('GET /static/js/session-check.js')).toBeLessThan(seen.indexOf('POST /api/user/get-session'));
    // The list: the document's preload, taken by the page; asked for again only when the stream says it is ready.
    const beforeStream = seen.slice(0, seen.indexOf('GET /api/conversation/list/events'));
    expect(beforeStream.filter((r) => r === 'GET /api/conversation/list')).toHaveLength(1);
  });
});
