import { expect, test } from '@playwright/test';
import { signInAsAdmin } from './support/fixtures.ts';
import { DESKTOP, PHONE } from './support/viewport.ts';
import { expectNoSeriousAxe, smsProspect, teammate, unique } from './support/workspace.ts';

/**
 * Issue 24, canned replies: an ADMIN saves one on the Team page; a teammate types "/" in the reply box, picks
 * it with the keyboard, and sends it. Axe on the Team page's new card and on the open "/" menu.
 */

for (const [size, viewport] of [
  ['1366×800', DESKTOP],
  ['390×844', PHONE],
] as const) {
  test(`canned replies at ${size}: the admin saves one, a teammate inserts it with "/"`, async ({ page, browser }) => {
    test.setTimeout(120_000);
    await signInAsAdmin(page); // signs in at the desktop size (the user menu is in the header there)
    await page.setViewportSize(viewport);
    const name = `quote-${unique()}`;
    await page.goto('/admin/users');
    const form = page.getByRole('form', { name: 'New canned reply' });
    await form.getByRole('textbox', { name: 'Shortcut' }).fill(name);
    await form.getByRole('textbox', { name: 'Reply text' }).fill('Thanks! A quote takes one working day; we call you to confirm.');
    await form.getByRole('button', { name: 'Add reply' }).click();
    await expect(page.getByTestId('canned-reply').filter({ hasText: `/${name}` })).toBeVisible();
    await expectNoSeriousAxe(page);

    const sms = await smsProspect(page.request, `+1415${unique().slice(-7)}`, 'How long does a quote take?');
    const bob = await teammate(browser, sms.accountId, page.request);
    await bob.page.setViewportSize(viewport);
    await bob.page.goto(`/conversation/${sms.uuid}`);
    const box = bob.page.getByRole('textbox', { name: 'Message' });
    await box.fill(`/${name.slice(0, 8)}`);
    const menu = bob.page.getByRole('listbox', { name: 'Canned replies' });
    await expect(menu.getByRole('option', { name: new RegExp(`/${name}`) })).toBeVisible();
    await expectNoSeriousAxe(bob.page);
    // Escape closes the menu only; "/" and the shortcut again, Enter inserts the text (not sent yet).
    await box.press('Escape');
    await expect(menu).toBeHidden();
    await box.fill(`/${name}`);
    await box.press('Enter');
    await expect(box).toHaveValue('Thanks! A quote takes one working day; we call you to confirm.');
    await box.press('Enter');
    await expect(bob.page.getByTestId('message').filter({ hasText: 'A quote takes one working day' })).toContainText(bob.email);

    if (size === '390×844') await bob.page.screenshot({ path: test.info().outputPath('canned-replies-phone.png') });
    // Only an admin keeps the list: a teammate's write is refused.
    expect((await bob.page.request.post('/api/canned-replies', { data: { shortcut: `${name}-b`, text: 'Mine' } })).status()).toBe(403);
    await bob.context.close();
  });
}

test('a page past the end of the list goes to the last page: never "Page 5 of 1" (issue 24)', async ({ page }) => {
  await signInAsAdmin(page);
  await page.goto('/conversation/list?view=table&page=999999');
  const pages = page.getByTestId('total-pages');
  await expect(pages).toHaveText(/^Page (\d+) of \1\+?$/);
  await expect(page).not.toHaveURL(/page=999999/);
});
