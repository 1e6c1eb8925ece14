import { type APIRequestContext, type Page, expect } from '@playwright/test';
import { E2E_ADMIN } from './constants.ts';

export { E2E_ADMIN };

let counter = 0;
/** A unique email per call, so tests sharing one server never collide. */
export const uniqueEmail = (prefix = 'user') => `${prefix}-${Date.now()}-${process.pid}-${++counter}@example.com`;

/** Registers a NORMAL user through the API (the admin exists already, so it is never the first). */
/** Not on the server's list of common passwords (issue 29), which refuses e.g. 'password123'. */
export const E2E_USER_PASSWORD = 'e2e-user-password-7';

export async function registerUser(request: APIRequestContext, email = uniqueEmail(), password = E2E_USER_PASSWORD) {
  const res = await request.post('/api/user/register', { data: { email, password } });
  expect(res.status(), await res.text()).toBe(201);
  return { email, password };
}

/** Logs in through the real login form: for the specs about signing in (auth, shell). Others use signInAs. */
export async function loginAs(page: Page, email: string, password: string) {
  await page.goto('/login');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Login' }).click();
  await expect(page.getByRole('button', { name: 'User menu' })).toHaveText(email);
}

export const loginAsAdmin = (page: Page) => loginAs(page, E2E_ADMIN.email, E2E_ADMIN.password);

/**
 * Signs in through the login route instead of the form, for the specs that are about something else: the
 * session cookie lands in the page's browser context (page.request shares its cookies), so the next page.goto
 * opens the app signed in. It does not navigate (a spec goes straight to the page it tests), which is what
 * makes it cheaper than loginAs: the form costs a page load, and the landing page another.
 */
export async function signInAs(page: Page, email: string, password: string) {
  const res = await page.request.post('/api/user/login', { data: { email, password } });
  expect(res.status(), await res.text()).toBe(200);
}

export const signInAsAdmin = (page: Page) => signInAs(page, E2E_ADMIN.email, E2E_ADMIN.password);

/** Confirms the app's confirmation modal (lib/confirm.tsx) after checking its text. */
export async function confirmModal(page: Page, text: string | RegExp) {
  const dialog = page.getByRole('dialog');
  await expect(dialog).toContainText(text);
  await dialog.getByRole('button', { name: /confirm|delete user/i }).click();
}

/** The playbook the server seeds at start (DEMO mode): the offline demo agent answers on it. */
export const DEMO_TYPE = 'Demo: Sales assistant';

/** The seeded demo playbook's id (any signed-in session of `request`). */
export async function demoTypeId(request: APIRequestContext): Promise<number> {
  const types = await (await request.get('/api/conversation-type/listt')).json();
  const demo = types.find((t: { title: string }) => t.title === DEMO_TYPE);
  expect(demo, 'the demo type is seeded at start').toBeTruthy();
  return demo.id;
}

let digits = 0;
/** Digits unique to this run and call (page ids, sender ids, phone numbers), `length` long. */
export const uniqueDigits = (length = 11) => `${Date.now() % 1_000_000_000}${process.pid % 100}${++digits}`.slice(-length);

/** Opens an admin page the way a person does: from the list of admin actions on /admin/hello. */
export async function openFromAdminHello(page: Page, link: string) {
  await page.goto('/admin/hello');
  await page.getByRole('list', { name: 'Admin actions' }).getByRole('link', { name: link }).click();
}

/** From the login page to the "Forgot password" page, by its link. */
export async function openForgotPassword(page: Page) {
  await page.goto('/login');
  await page.getByRole('link', { name: 'Forgot password?' }).click();
  await expect(page).toHaveURL(/\/forgot-password$/);
  await expect(page.getByRole('heading', { name: 'Forgot password' })).toBeVisible();
}

/** Fills the register form (email, password and its confirmation) and submits it. */
export async function submitRegisterForm(page: Page, email: string, password: string, confirm = password) {
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByLabel('Confirm password').fill(confirm);
  await page.getByRole('button', { name: 'Register' }).click();
}
