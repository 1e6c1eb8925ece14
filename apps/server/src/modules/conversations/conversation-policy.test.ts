import { conversationListQuery } from '@sales-agent/shared/schemas/conversation';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Actor } from '../../context.ts';
import { prospects } from '../../db/schema/index.ts';
import { AppError } from '../../lib/errors.ts';
import { buildTestApp, type TestApp } from '../../test/build-test-app.ts';
import { buildConversation, buildMessagingAccount, buildProspect, grantAccount } from '../../test/conversation-factories.ts';
import { buildAdmin, buildUser } from '../../test/factories.ts';
import { loadConversationToChange, loadConversationToView } from './conversation-policy.ts';
import { listConversations, readConversationDetail } from './conversations.service.ts';
import { ConversationAccounts, inboxViewer } from './inbox-access.ts';

/**
 * The conversation policy is written in TypeScript (the routes' loaders, the inbox stream) and in SQL (the
 * detail read's grant, the list's filter). Each form is asked about the same viewers and conversations, and
 * every answer must match the one table below: a change to one form that the others do not follow fails here.
 */
type ConvKey = 'granted' | 'simulated' | 'otherAccount' | 'webChat';
type ActorKey = 'admin' | 'normalGranted' | 'normalNotGranted' | 'anonymous';
/** What a viewer gets: hidden (404), seen, or seen and administered. */
type View = 'hidden' | 'sees' | 'administers';
/** Trying to change it: the status an id route answers, or 'ok'. */
type Change = 'ok' | 401 | 403 | 404;

const expected: Record<ActorKey, Record<ConvKey, { view: View; change: Change }>> = {
  admin: {
    granted: { view: 'administers', change: 'ok' },
    simulated: { view: 'administers', change: 'ok' },
    otherAccount: { view: 'administers', change: 'ok' },
    webChat: { view: 'administers', change: 'ok' },
  },
  normalGranted: {
    granted: { view: 'administers', change: 'ok' },
    simulated: { view: 'administers', change: 'ok' },
    otherAccount: { view: 'hidden', change: 404 },
    webChat: { view: 'sees', change: 403 },
  },
  normalNotGranted: {
    granted: { view: 'hidden', change: 404 },
    simulated: { view: 'hidden', change: 404 },
    otherAccount: { view: 'hidden', change: 404 },
    webChat: { view: 'sees', change: 403 },
  },
  anonymous: {
    granted: { view: 'hidden', change: 401 },
    simulated: { view: 'hidden', change: 401 },
    otherAccount: { view: 'hidden', change: 401 },
    webChat: { view: 'sees', change: 401 },
  },
};

let t: TestApp;
const actors = {} as Record<ActorKey, Actor | null>;
const convs = {} as Record<ConvKey, { id: number; uuid: string }>;

beforeAll(async () => {
  t = await buildTestApp();
  const asActor = ({ id, email, role }: Actor): Actor => ({ id, email, role });
  actors.admin = asActor(await buildAdmin(t.ctx));
  actors.normalGranted = asActor(await buildUser(t.ctx));
  actors.normalNotGranted = asActor(await buildUser(t.ctx));
  actors.anonymous = null;
  const accountA = await buildMessagingAccount(t.ctx);
  const accountB = await buildMessagingAccount(t.ctx);
  await grantAccount(t.ctx, actors.normalGranted.id, accountA.id);
  // Someone holds a grant on B, so "not granted" is about this viewer, not an account nobody may see.
  await grantAccount(t.ctx, (await buildUser(t.ctx)).id, accountB.id);
  const [simulatedProspect] = await t.ctx.db
    .insert(prospects)
    .values({ messagingAccountId: accountA.id, externalId: 'simulated-sender', simulated: true })
    .returning();
  convs.granted = await buildConversation(t.ctx, { prospectId: (await buildProspect(t.ctx, accountA.id)).id });
  convs.simulated = await buildConversation(t.ctx, { prospectId: simulatedProspect.id });
  convs.otherAccount = await buildConversation(t.ctx, { prospectId: (await buildProspect(t.ctx, accountB.id)).id });
  convs.webChat = await buildConversation(t.ctx);
});
afterAll(() => t.close());

/** The view an access call answers: its canAdminister, or hidden on its 404. */
async function viewOf(read: () => Promise<{ canAdminister: boolean }>): Promise<View> {
  try {
    return (await read()).canAdminister ? 'administers' : 'sees';
  } catch (err) {
    if (err instanceof AppError && err.status === 404) return 'hidden';
    throw err;
  }
}

async function changeOf(actor: Actor | null, conv: { id: number }): Promise<Change> {
  try {
    await loadConversationToChange(t.ctx, actor, { id: conv.id });
    return 'ok';
  } catch (err) {
    if (err instanceof AppError) return err.status as Change;
    throw err;
  }
}

const cases = (Object.keys(expected) as ActorKey[]).flatMap((actor) =>
  (Object.keys(expected[actor]) as ConvKey[]).map((conv) => ({ actor, conv, ...expected[actor][conv] })),
);

describe('the conversation policy answers the same in TypeScript and SQL', () => {
  it.each(cases)('$actor and the $conv conversation: $view, change $change', async ({ actor: actorKey, conv: convKey, view, change }) => {
    const actor = actors[actorKey];
    const conv = convs[convKey];

    // TypeScript: the loader every uuid route uses.
    expect(await viewOf(() => loadConversationToView(t.ctx, actor, conv.uuid))).toBe(view);
    // SQL: the detail read decides from the grant its one statement fetched.
    expect(await viewOf(() => readConversationDetail(t.ctx, actor, conv.uuid))).toBe(view);
    // TypeScript: the loader every id route uses.
    expect(await changeOf(actor, conv)).toBe(change);

    // The inbox (list and live stream) shows exactly the conversations the viewer administers.
    if (!actor) return;
    const administers = view === 'administers';
    // SQL: the list's filter.
    const listed = await listConversations(t.ctx, actor, conversationListQuery.parse({ uuid: conv.uuid }));
    expect(listed.conversations.map((row) => row.uuid)).toEqual(administers ? [conv.uuid] : []);
    // TypeScript: the stream's check against its cached grants.
    const viewer = inboxViewer(t.ctx, actor, new ConversationAccounts(t.ctx));
    try {
      expect(await viewer.maySee(conv.id)).toBe(administers);
    } finally {
      viewer.close();
    }
  });
});
