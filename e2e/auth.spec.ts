import { expect, request as playwrightRequest, test } from '@playwright/test';
import { confirmModal, loginAs, loginAsAdmin, registerUser, uniqueEmail, openForgotPassword, submitRegisterForm } from './support/fixtures.ts';

test.describe('register', () => {
  test('shows the spec validation messages, then registers and lands on onboarding', async ({ page }) => {
    await page.goto('/register');
    await page.getByRole('button', { name: 'Register' }).click();
    await expect(page.getByText('Email is required')).toBeVisible();
    await expect(page.getByText('Password must be at least 8 characters long')).toBeVisible();

    await submitRegisterForm(page, uniqueEmail('reg'), 'blue-harbor-71', 'blue-harbor-72');
    await expect(page.getByText('Passwords do not match')).toBeVisible();
    await expect(page.getByText('Password must be at least 8 characters long')).toHaveCount(0);

    await page.getByLabel('Confirm password').fill('blue-harbor-71');
    await page.getByRole('button', { name: 'Register' }).click();
    await expect(page.getByText('Registration successful')).toBeVisible();
    await expect(page).toHaveURL(/\/user\/onboarding$/);
    await expect(page.getByRole('button', { name: 'User menu' })).toBeVisible();
  });

  test('a taken email shows the server error as a toast', async ({ page, request }) => {
    const user = await registerUser(request);
    await page.goto('/register');
    await submitRegisterForm(page, user.email, 'blue-harbor-71');
    await expect(page.getByText('An account with this email already exists. Log in instead.')).toBeVisible();
  });
});

test.describe('login', () => {
  test('shows the spec validation messages and the server error, then logs in', async ({ page, request }) => {
    const user = await registerUser(request);
    await page.goto('/login');
    await page.getByRole('button', { name: 'Login' }).click();
    await expect(page.getByText('Email is required')).toBeVisible();
    await expect(page.getByText('Password is required')).toBeVisible();

    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password', { exact: true }).fill('wrong-password');
    await page.getByRole('button', { name: 'Login' }).click();
    await expect(page.getByText('Invalid email or password.')).toBeVisible();

    await page.getByLabel('Password', { exact: true }).fill(user.password);
    await page.getByRole('button', { name: 'Login' }).click();
    await expect(page.getByText('Login successful')).toBeVisible();
    await expect(page.getByRole('button', { name: 'User menu' })).toHaveText(user.email);
  });

  test('the session survives a page reload', async ({ page, request }) => {
    const user = await registerUser(request);
    await loginAs(page, user.email, user.password);
    await page.reload();
    await expect(page.getByRole('button', { name: 'User menu' })).toHaveText(user.email);
  });
});

test.describe('set-password', () => {
  test('validates like register', async ({ page }) => {
    await page.goto('/set-password?email=someone%40example.com');
    await expect(page.getByLabel('Email')).toHaveValue('someone@example.com');
    await page.getByLabel('Password', { exact: true }).fill('short');
    await page.getByLabel('Confirm password').fill('other');
    await page.getByRole('button', { name: 'Set password' }).click();
    await expect(page.getByText('Password must be at least 8 characters long')).toBeVisible();
    await expect(page.getByText('Passwords do not match')).toBeVisible();
  });

  test('retries while the server answers 202, 2 s apart, and shows the support message after the 6th attempt', async ({ page }) => {
    let attempts = 0;
    let answered = 0;
    const tokens: unknown[] = [];
    page.on('request', (r) => {
      if (!r.url().endsWith('/api/user/set-password')) return;
      attempts += 1;
      tokens.push(r.postDataJSON().token);
    });
    // 202 (still provisioning) is the server's answer to a valid link whose account does not exist yet; the
    // link's one-time token cannot be made from here, so the answer is played back (users.routes.test.ts has the server side).
    await page.route('**/api/user/set-password', (route) =>
      route.fulfill({ status: 202, contentType: 'application/json', body: JSON.stringify({ message: 'Your account is still being set up. Please wait.' }) }),
    );
    page.on('response', (r) => {
      if (r.url().endsWith('/api/user/set-password')) answered += 1;
    });
    // The page's clock is driven by the test, so "2 s apart" is checked exactly, whatever the machine's load.
    await page.clock.install({ time: new Date('2026-01-01T00:00:00Z') });
    await page.goto(`/set-password?email=${encodeURIComponent(uniqueEmail('pending'))}&token=one-time-link-token`);
    // Pause only once the form is drawn: the app's first render may wait on a timer of the installed clock.
    await expect(page.getByLabel('Password', { exact: true })).toBeVisible();
    await page.clock.pauseAt(new Date('2026-01-01T00:01:00Z'));
    await page.getByLabel('Password', { exact: true }).fill('blue-harbor-71');
    await page.getByLabel('Confirm password').fill('blue-harbor-71');
    await page.getByRole('button', { name: 'Set password' }).click();
    for (let attempt = 1; attempt <= 6; attempt++) {
      await expect.poll(() => attempts).toBe(attempt);
      // The 2 s wait starts when the 202 arrives.
      await expect.poll(() => answered).toBe(attempt);
      if (attempt < 6) {
        await page.waitForTimeout(200);
        await page.clock.runFor(1_900);
        await page.waitForTimeout(300);
        expect(attempts, 'no retry before 2 s have passed').toBe(attempt);
        await page.clock.runFor(200);
      }
    }
    await expect(page.getByRole('alert').filter({ hasText: 'Something went wrong! Please contact support.' })).toBeVisible();
    expect(attempts).toBe(6);
    // Every attempt carried the link's token, which left the address bar.
    expect(tokens).toEqual(Array(6).fill('one-time-link-token'));
    expect(page.url()).not.toContain('token');
  });

  test('on success logs the user in and goes to /user/onboarding', async ({ page }) => {
    const email = uniqueEmail('provisioned');
    let calls = 0;
    // The account appears on the server after two "still provisioning" answers.
    await page.route('**/api/user/set-password', (route) => {
      calls += 1;
      return calls < 3
        ? route.fulfill({ status: 202, contentType: 'application/json', body: JSON.stringify({ message: 'wait' }) })
        : route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify({ email, role: 'NORMAL' }) });
    });
    await page.goto(`/set-password?email=${encodeURIComponent(email)}&token=one-time-link-token`);
    await page.getByLabel('Password', { exact: true }).fill('blue-harbor-71');
    await page.getByLabel('Confirm password').fill('blue-harbor-71');
    await page.getByRole('button', { name: 'Set password' }).click();
    await expect(page).toHaveURL(/\/user\/onboarding$/, { timeout: 15_000 });
    expect(calls).toBe(3);
    await expect(page.getByRole('button', { name: 'User menu' })).toHaveText(email);
  });
});

test.describe('set-password without a link', () => {
  test('the server refuses it with the same answer for any email, and the page says how to get a link', async ({ page, request }) => {
    const user = await registerUser(request);
    await page.goto(`/set-password?email=${encodeURIComponent(user.email)}`);
    await expect(page.getByTestId('set-password-hint')).toContainText('Open this page from the link you were sent');
    await page.getByLabel('Password', { exact: true }).fill('attacker-chosen-91');
    await page.getByLabel('Confirm password').fill('attacker-chosen-91');
    await page.getByRole('button', { name: 'Set password' }).click();
    await expect(page.getByText('This link to set a password is not valid')).toBeVisible();
    // An anonymous client (registerUser left `request` signed in as the user, who may set a first password).
    const anonymous = await playwrightRequest.newContext({ baseURL: test.info().project.use.baseURL });
    const known = await anonymous.post('/api/user/set-password', { data: { email: user.email, password: 'attacker-chosen-91' } });
    const unknown = await anonymous.post('/api/user/set-password', { data: { email: uniqueEmail('nobody'), password: 'attacker-chosen-91' } });
    expect(known.status()).toBe(403);
    expect(await unknown.text()).toBe(await known.text());
    expect((await anonymous.post('/api/user/login', { data: user })).status()).toBe(200);
    await anonymous.dispose();
  });

  test('without email sending, Forgot password says to ask an administrator, whose reset link works once', async ({ page, browser, request }) => {
    test.slow();
    const user = await registerUser(request);
    await openForgotPassword(page);
    await page.getByLabel('Email').fill(user.email);
    await page.getByRole('button', { name: 'Send link' }).click();
    await expect(page.getByTestId('forgot-password-result')).toContainText('Ask an administrator');

    await loginAsAdmin(page);
    await page.goto(`/user/${user.email}`);
    await page.getByRole('button', { name: `Create a password reset link for ${user.email}` }).click();
    const link = await page.getByTestId('reset-link').inputValue();
    expect(link).toContain('/set-password?');

    const visitor = await browser.newPage();
    await visitor.goto(link);
    await expect(visitor.getByLabel('Email')).toHaveValue(user.email);
    await visitor.getByLabel('Password', { exact: true }).fill('admin-sent-me-this-4');
    await visitor.getByLabel('Confirm password').fill('admin-sent-me-this-4');
    await visitor.getByRole('button', { name: 'Set password' }).click();
    await expect(visitor).toHaveURL(/\/user\/onboarding$/);
    await expect(visitor.getByRole('button', { name: 'User menu' })).toHaveText(user.email);
    await visitor.close();
    expect((await request.post('/api/user/login', { data: user })).status()).toBe(401);
    expect((await request.post('/api/user/login', { data: { email: user.email, password: 'admin-sent-me-this-4' } })).status()).toBe(200);
  });
});

test.describe('account security on the profile', () => {
  test('change password (current one required), then sign out everywhere', async ({ page, browser, request }) => {
    test.slow();
    const user = await registerUser(request);
    const otherDevice = await browser.newPage();
    await loginAs(otherDevice, user.email, user.password);
    await loginAs(page, user.email, user.password);
    await page.goto(`/user/${user.email}`);
    await page.getByLabel('Current password').fill('not-my-password');
    await page.getByLabel('New password', { exact: true }).fill('changed-password-8');
    await page.getByLabel('Confirm new password').fill('changed-password-8');
    await page.getByRole('button', { name: 'Change password' }).click();
    await expect(page.getByText('The current password is not correct.')).toBeVisible();
    await page.getByLabel('Current password').fill(user.password);
    await page.getByRole('button', { name: 'Change password' }).click();
    await expect(page.getByText('Password changed. Your other sessions have been signed out.')).toBeVisible();
    // The other browser's session ended; this one goes on.
    await otherDevice.reload();
    await expect(otherDevice.getByRole('link', { name: 'Login' })).toBeVisible();
    await otherDevice.close();
    await page.reload();
    await expect(page.getByRole('button', { name: 'User menu' })).toHaveText(user.email);

    await page.getByRole('button', { name: 'Sign out everywhere' }).click();
    const dialog = page.getByRole('dialog');
    await expect(dialog).toContainText('Sign out of every browser and device');
    await dialog.getByRole('button', { name: 'Sign out everywhere' }).click();
    await expect(page).toHaveURL(/\/login(\?|$)/);
    await loginAs(page, user.email, 'changed-password-8');
  });
});

test.describe('profile', () => {
  test('shows the email and deletes the user after confirmation', async ({ page, request }) => {
    const user = await registerUser(request);
    await loginAs(page, user.email, user.password);
    await page.getByRole('button', { name: 'User menu' }).click();
    await page.getByRole('menuitem', { name: 'Profile' }).click();
    await expect(page.getByTestId('profile-email')).toHaveText(user.email);
    await expect(page.getByText('No messaging accounts are connected to this user yet.')).toBeVisible();

    await page.getByRole('main').getByRole('button', { name: 'Delete User' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    await expect(page.getByTestId('profile-email')).toBeVisible();

    await page.getByRole('main').getByRole('button', { name: 'Delete User' }).click();
    await confirmModal(page, `Delete the user ${user.email}?`);
    await expect(page.getByText('User deleted')).toBeVisible();
    await expect(page.getByRole('link', { name: 'Login' })).toBeVisible();
    const relogin = await request.post('/api/user/login', { data: user });
    expect(relogin.status()).toBe(401);
  });

  test("a NORMAL user cannot open someone else's profile", async ({ page, request }) => {
    const me = await registerUser(request);
    const other = await registerUser(request);
    await loginAs(page, me.email, me.password);
    await page.goto(`/user/${other.email}`);
    // Issue 9: 'User not found' for anyone but the user themself or an ADMIN (the API answers 403).
    await expect(page.getByText('User not found', { exact: true })).toBeVisible();
    await expect(page.getByTestId('profile-email')).toHaveCount(0);
  });
});

test.describe('profile lookup', () => {
  test("an ADMIN opening an unknown user's profile sees 'User not found'", async ({ page }) => {
    await loginAsAdmin(page);
    await page.goto('/user/nobody-here@example.com');
    await expect(page.getByText('User not found', { exact: true })).toBeVisible();
  });
});

test.describe('app config', () => {
  test('admin saves each text with its own Save; register and onboarding show the HTML sanitized', async ({ page, browser }) => {
    await loginAsAdmin(page);
    await page.goto('/admin/app-config');
    const registerArea = page.getByLabel('Register page HTML', { exact: true });
    await expect(registerArea).toHaveAttribute('rows', '10');
    await expect(page.getByLabel('Onboarding HTML', { exact: true })).toHaveAttribute('rows', '10');

    await registerArea.fill('<h3>Join the pilot</h3><img src="x" onerror="window.__xss = 1"><script>window.__xss = 2</script>');
    await page.getByRole('button', { name: 'Save Register page HTML' }).click();
    await expect(page.getByText('Register page HTML saved.')).toBeVisible();

    await page.getByLabel('Onboarding HTML', { exact: true }).fill('<p>Step 1: <a href="javascript:window.__xss=3">connect</a> your Instagram</p>');
    await page.getByRole('button', { name: 'Save Onboarding HTML' }).click();
    await expect(page.getByText('Onboarding HTML saved.')).toBeVisible();

    await page.getByLabel('Support message', { exact: true }).fill('Call us at 555-0100.');
    await page.getByRole('button', { name: 'Save Support message' }).click();
    await expect(page.getByText('Support message saved.')).toBeVisible();

    const visitor = await browser.newPage();
    await visitor.goto('/register');
    await expect(visitor.getByTestId('register-html').getByRole('heading', { name: 'Join the pilot' })).toBeVisible();
    await visitor.goto('/user/onboarding');
    await expect(visitor.getByTestId('onboarding-html')).toContainText('Step 1: connect your Instagram');
    // DOMPurify strips the javascript: URL and the inline handlers; nothing ran.
    await expect(visitor.getByTestId('onboarding-html').locator('a')).not.toHaveAttribute('href', /javascript:/);
    expect(await visitor.evaluate(() => (window as { __xss?: number }).__xss)).toBeUndefined();

    // The configured support message replaces the default after set-password retries run out.
    await visitor.route('**/api/user/set-password', (route) =>
      route.fulfill({ status: 202, contentType: 'application/json', body: '{"message":"wait"}' }),
    );
    let answered = 0;
    visitor.on('response', (r) => {
      if (r.url().endsWith('/api/user/set-password')) answered += 1;
    });
    await visitor.clock.install();
    await visitor.goto('/set-password?email=x%40example.com');
    await visitor.getByLabel('Password', { exact: true }).fill('blue-harbor-71');
    await visitor.getByLabel('Confirm password').fill('blue-harbor-71');
    await visitor.getByRole('button', { name: 'Set password' }).click();
    // Move the page's clock past each 2 s wait until the 6th answer is in (a retry waits for its 202 first).
    await expect
      .poll(async () => {
        await visitor.clock.runFor(2_100);
        return answered;
      })
      .toBeGreaterThanOrEqual(6);
    await expect(visitor.getByRole('alert').filter({ hasText: 'Call us at 555-0100.' })).toBeVisible();
    await visitor.close();

    // Restore the defaults other tests expect.
    await expect(page.getByText('Support message saved.')).toHaveCount(0);
    await page.getByLabel('Support message', { exact: true }).fill('');
    await page.getByRole('button', { name: 'Save Support message' }).click();
    await expect(page.getByText('Support message saved.')).toBeVisible();
  });

  test('the global message shows once per 3 hours per device and closes itself after 10 s', async ({ page, browser }) => {
    await loginAsAdmin(page);
    await page.goto('/admin/app-config');
    await page.getByRole('textbox', { name: 'Global message' }).fill('Scheduled maintenance tonight at 22:00 UTC');
    await page.getByRole('button', { name: 'Save Global message' }).click();
    await expect(page.getByText('Global message saved.')).toBeVisible();

    const context = await browser.newContext();
    const visitor = await context.newPage();
    await visitor.clock.install();
    await visitor.goto('/');
    const banner = visitor.getByRole('status', { name: 'Global message' });
    await expect(banner).toContainText('Scheduled maintenance tonight');
    await visitor.clock.runFor(10_500);
    await expect(banner).toHaveCount(0);
    await visitor.reload();
    await expect(visitor.getByRole('button', { name: 'Sales Agent home' }).or(visitor.getByRole('link', { name: 'Sales Agent home' }))).toBeVisible();
    await visitor.waitForTimeout(500);
    await expect(banner).toHaveCount(0);
    await context.close();

    // Toasts close after 3 s; wait for the first one to go so the next assertion sees the new one.
    await expect(page.getByText('Global message saved.')).toHaveCount(0);
    await page.getByRole('textbox', { name: 'Global message' }).fill('');
    await page.getByRole('button', { name: 'Save Global message' }).click();
    await expect(page.getByText('Global message saved.')).toBeVisible();
  });
});
