import AxeBuilder from '@axe-core/playwright';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { type APIRequestContext, type Locator, type Page, expect, test } from '@playwright/test';
import { E2E_ADMIN, signInAsAdmin } from './support/fixtures.ts';
import { DESKTOP, PHONE, expectNoHorizontalPageScroll, expectPinnedColumnCoversNoField, expectWithinViewportWidth } from './support/viewport.ts';

/**
 * Issue 12 item 5: every list of records (the mantine-datatable tables) stays usable on a phone. At 1366×800
 * and at 390×844, light and dark, the page never scrolls sideways (a wide table scrolls inside its own frame),
 * every action of a row is on screen, and axe finds nothing serious or critical with the rows filled in
 * (accessibility.spec.ts sees most of these tables empty). Runs on the second E2E server, whose GoHighLevel
 * fake fills the contacts table. With SCREENSHOTS=1 the README's screens (light) go to docs/screenshots/ (run
 * this spec alone for a clean server).
 */
const FAKE_PORT = Number(process.env.E2E_PORT ?? 3100) + 50;
test.use({ baseURL: `http://localhost:${FAKE_PORT}` });

const SHOTS = process.env.SCREENSHOTS === '1';
const recordingFixture = (name: string) => readFileSync(path.resolve('apps/server/src/test/fixtures', name));

interface Seeded {
  typeId: number;
  uuid: string;
}

async function seed(api: APIRequestContext): Promise<Seeded> {
  const stamp = Date.now();
  const type = await api.post('/api/admin/conversation-type/create-edit', {
    data: {
      title: `Solar panels for homeowners ${stamp}`,
      rolePrompt: 'You are Sam from SunCo. You book roof surveys for homeowners who asked about solar panels.',
      errorPrompt: 'Apologise; a colleague will call back.',
      config: '{"crm": "GHL"}',
    },
  });
  expect(type.status(), await type.text()).toBe(200);
  const typeId = (await type.json()).conversationType.id as number;
  const phases = [
    ['Greet the homeowner and ask whether they own the house.', 'They said whether they own the house.', 'Ask again, kindly, whether they own it.'],
    ['Find out the roof size and which way it faces.', 'The roof size and direction are known.', 'Remind them we need the roof size.'],
  ];
  for (const [index, [prompt, transitionPrompt, followUpPrompt]] of phases.entries()) {
    const phase = await api.post('/api/admin/conversation-phase/create-edit', {
      data: { index, prompt, transitionPrompt, followUpPrompt, conversationType: { id: typeId } },
    });
    expect(phase.status(), await phase.text()).toBe(200);
  }

  const account = await api.post('/api/admin/messaging-accounts/create-edit', {
    data: { type: 'INSTAGRAM', accessToken: `tok-${stamp}`, pageId: `ig-${stamp}`, pageName: 'SunCo Instagram', conversationTypeId: typeId },
  });
  expect(account.status(), await account.text()).toBe(200);
  const accountId = (await account.json()).messagingAccount.id as number;
  const grant = await api.post('/api/admin/user-messaging-accounts/create', { data: { userEmail: E2E_ADMIN.email, messagingAccountId: accountId } });
  expect(grant.status(), await grant.text()).toBe(201);

  for (const [name, mimeType] of [
    ['tone-3s.mp3', 'audio/mpeg'],
    ['tone-2s.wav', 'audio/wav'],
  ] as const) {
    const upload = await api.post('/api/call-recording/upload', { multipart: { files: { name, mimeType, buffer: recordingFixture(name) } } });
    expect(upload.status(), await upload.text()).toBeLessThan(300);
  }

  // A web chat the demo agent has answered waits on the visitor: an unanswered conversation.
  const types = await (await api.get('/api/conversation-type/listt')).json();
  const demo = types.find((t: { title: string }) => t.title === 'Demo: Sales assistant');
  const { uuid } = await (await api.post('/api/conversation/new', { data: { conversationTypeId: demo.id } })).json();
  await api.post(`/api/conversation/${uuid}/written-message`, { data: { message: 'Do you install on flat roofs?' } });
  return { typeId, uuid };
}

interface Screen {
  name: string;
  path: string;
  table: string;
  /** Its screenshots go to docs/screenshots/ (README) with SCREENSHOTS=1; the others to the test's output. */
  readme?: boolean;
  /** Brings the screen to the state worth showing, and returns the row whose actions are checked. */
  prepare(page: Page, table: Locator): Promise<Locator | null>;
}

const firstRow = (table: Locator) => table.getByRole('row').nth(1);

const screens = (seeded: Seeded): Screen[] => [
  {
    name: 'unanswered',
    path: '/admin/unanswered-conversations/list',
    table: 'Active unanswered conversations',
    readme: true,
    prepare: async (page, table) => {
      const row = table.getByRole('row').filter({ has: page.getByRole('link', { name: seeded.uuid }) });
      await expect(row).toBeVisible({ timeout: 20_000 });
      return row;
    },
  },
  {
    name: 'conversation-types',
    path: '/admin/conversation-type/list',
    table: 'Conversation types',
    readme: true,
    prepare: async (page) => page.getByRole('row', { name: `Conversation type ${seeded.typeId}`, exact: true }),
  },
  {
    name: 'conversation-phases',
    path: `/admin/conversation-type/${seeded.typeId}/edit`,
    table: 'Conversation phases',
    prepare: async (page) => page.getByRole('row', { name: 'Phase 0', exact: true }),
  },
  {
    name: 'contacts',
    path: `/admin/conversation-type/${seeded.typeId}/contacts`,
    table: 'Contacts',
    prepare: async (page, table) => {
      await page.getByRole('combobox', { name: 'Pipeline' }).click();
      await page.getByRole('option', { name: 'Solar leads', exact: true }).click();
      await expect(page.getByTestId('contacts-page')).toHaveText('1 of 3');
      return firstRow(table);
    },
  },
  { name: 'messaging-accounts', path: '/admin/messaging-accounts/list', table: 'Messaging accounts', prepare: async (_page, table) => firstRow(table) },
  { name: 'permissions', path: '/admin/user-messaging-accounts/list', table: 'Permissions', prepare: async (_page, table) => firstRow(table) },
  { name: 'recordings', path: '/call-recordings/statistics', table: 'Recordings', readme: true, prepare: async (_page, table) => firstRow(table) },
  {
    name: 'upload',
    path: '/call-recordings/upload',
    table: 'Selected files',
    prepare: async (page, table) => {
      await page.locator('input[type=file]').setInputFiles([
        { name: 'first call with a long file name from the sales team.mp3', mimeType: 'audio/mpeg', buffer: recordingFixture('tone-3s.mp3') },
        { name: 'follow-up.wav', mimeType: 'audio/wav', buffer: recordingFixture('tone-2s.wav') },
      ]);
      return firstRow(table);
    },
  },
  { name: 'profile', path: `/user/${E2E_ADMIN.email}`, table: 'Connected accounts', prepare: async (_page, table) => firstRow(table) },
];

for (const colorScheme of ['light', 'dark'] as const) {
  test.describe(`admin tables (${colorScheme})`, () => {
    test.use({ colorScheme });

    test('at 1366×800 and 390×844: no sideways page scroll, every row action on screen, no serious axe finding', async ({ page }) => {
      test.setTimeout(240_000);
      await page.setViewportSize(DESKTOP);
      // Logged in at desktop width: the phone header folds the user menu the login check looks for.
      await signInAsAdmin(page);
      const seeded = await seed(page.request);
      const problems: string[] = [];

      for (const [size, viewport] of [
        ['desktop', DESKTOP],
        ['phone', PHONE],
      ] as const) {
        await page.setViewportSize(viewport);
        for (const screen of screens(seeded)) {
          await test.step(`${screen.name} (${size})`, async () => {
            await page.goto(screen.path);
            const table = page.getByRole('table', { name: screen.table, exact: true });
            const row = await screen.prepare(page, table);
            await expect(table).toBeVisible();
            await expectNoHorizontalPageScroll(page);
            if (row) {
              await row.scrollIntoViewIfNeeded();
              // The last column holds the row's actions (or, for the contacts, its Call button).
              const actions = row.getByRole('cell').last().locator('button, a');
              expect(await actions.count(), `${screen.name}: actions in the last column`).toBeGreaterThan(0);
              for (const action of await actions.all()) await expectWithinViewportWidth(page, action);
              await expectPinnedColumnCoversNoField(table);
            }
            const axe = await new AxeBuilder({ page }).include('main').analyze();
            for (const v of axe.violations) {
              if (v.impact === 'serious' || v.impact === 'critical') {
                problems.push(`${screen.name} (${size}): ${v.id} ×${v.nodes.length}: ${v.nodes.slice(0, 2).map((n) => n.target.join(' ')).join(' | ')}`);
              }
            }
            const file = `admin-${screen.name}-${size}.png`;
            await page.screenshot({
              path: SHOTS && screen.readme && colorScheme === 'light' ? `docs/screenshots/${file}` : test.info().outputPath(`${colorScheme}-${file}`),
              fullPage: true,
            });
          });
        }
      }
      expect(problems).toEqual([]);
    });
  });
}
