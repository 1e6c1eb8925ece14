import { expect, test } from '@playwright/test';
import { E2E_FAKE_OPENAI_PORT, E2E_SMTP_PORT } from '../playwright.config.ts';
import { linkIn, startSmtpFake, type SmtpFake } from '../apps/server/src/test/fakes/smtp-fake.ts';
import { loginAs, registerUser, uniqueEmail, openForgotPassword } from './support/fixtures.ts';

/**
 * "Forgot password?" by email (issue 29): the second server sends through SMTP_URL to a loopback SMTP server
 * this spec runs (E2E_SMTP_PORT), and the test follows the link read out of the mail, as the user would.
 */
test.use({ baseURL: `http://localhost:${E2E_FAKE_OPENAI_PORT}` });

let smtp: SmtpFake;
test.beforeAll(async () => {
  smtp = await startSmtpFake(E2E_SMTP_PORT);
});
test.afterAll(async () => {
  await smtp.close();
});

test('forgot password: the email link sets a new password once, and the answer is the same for an unknown email', async ({ page, browser, request }) => {
  test.slow();
  const user = await registerUser(request);
  await openForgotPassword(page);
  await page.getByLabel('Email').fill(user.email);
  await page.getByRole('button', { name: 'Send link' }).click();
  const answer = page.getByTestId('forgot-password-result');
  await expect(answer).toContainText('If an account uses this email');
  const said = await answer.textContent();

  // An unknown email gets the very same answer, and no mail.
  await page.getByLabel('Email').fill(uniqueEmail('nobody'));
  await page.getByRole('button', { name: 'Send link' }).click();
  await expect(answer).toHaveText(said!);

  const mail = await smtp.nextMailTo(user.email);
  expect(mail.subject).toBe('Set a new password for Sales Agent');
  const link = linkIn(mail)!;
  expect(link).toContain(`http://localhost:${E2E_FAKE_OPENAI_PORT}/set-password?`);

  const visitor = await browser.newPage();
  await visitor.goto(link);
  await expect(visitor.getByLabel('Email')).toHaveValue(user.email);
  await visitor.getByLabel('Password', { exact: true }).fill('password');
  await visitor.getByLabel('Confirm password').fill('password');
  await visitor.getByRole('button', { name: 'Set password' }).click();
  // The commonest passwords are refused, and the link stays usable.
  await expect(visitor.getByText('This password is one of the most common passwords')).toBeVisible();
  await visitor.getByLabel('Password', { exact: true }).fill('found-my-way-back-3');
  await visitor.getByLabel('Confirm password').fill('found-my-way-back-3');
  await visitor.getByRole('button', { name: 'Set password' }).click();
  await expect(visitor).toHaveURL(/\/user\/onboarding$/);
  await visitor.close();

  // The link worked once; the new password logs in, the old one no longer does.
  const reuse = await request.post('/api/user/set-password', {
    data: { email: user.email, password: 'someone-else-9', token: new URL(link).searchParams.get('token') },
  });
  expect(reuse.status()).toBe(403);
  expect((await request.post('/api/user/login', { data: user })).status()).toBe(401);
  await loginAs(page, user.email, 'found-my-way-back-3');
  expect(smtp.mails.filter((m) => m.to.some((to) => to.startsWith('nobody-')))).toEqual([]);
});
