import { expect, describe, it } from 'vitest';
import { buildConversationType } from '../../test/conversation-factories.ts';
import { OpenAiFake } from '../../test/fakes/openai-fake.ts';
import { startOpenAiRealtimeFake } from '../../test/fakes/openai-realtime-fake.ts';
import { startTwilioFake } from '../../test/fakes/twilio-fake.ts';
import { attachCollections, buildCollection } from '../../test/knowledge-factories.ts';
import { REALTIME_ACCOUNT_SID, REALTIME_AUTH_TOKEN, useRealtimeCalls } from '../../test/realtime-call.ts';
import { useFake, useTestApp, useUser } from '../../test/use-test-app.ts';

const llm = useFake(new OpenAiFake());
const realtime = useFake(() => startOpenAiRealtimeFake({ apiKey: llm.env().OPENAI_API_KEY }));
const twilioApi = useFake(() => startTwilioFake({ accounts: { [REALTIME_ACCOUNT_SID]: REALTIME_AUTH_TOKEN } }));
const t = useTestApp({ env: () => ({ ...llm.env(), ...realtime.env(), TWILIO_API_URL: twilioApi.url }) });
const admin = useUser(t, 'ADMIN');
const liveCall = useRealtimeCalls(t, realtime, twilioApi);

/** A live realtime call of a new type (with these knowledge collections), its session configured. */
async function liveCallOfType(collectionIds: number[]) {
  const type = await buildConversationType(t.ctx, { phases: 1 });
  if (collectionIds.length) expect((await attachCollections(t, admin.cookie, type.id, collectionIds)).statusCode).toBe(200);
  return liveCall(type.id);
}

describe('realtime voice agent: the search_knowledge tool', () => {
  it('a type with knowledge gets the tool; its function_call is answered with the relevant passages, then a response', async () => {
    const collection = await buildCollection(t, admin.cookie, [
      ['How much does installation cost?', 'Installation costs 480 euros, done within two weeks.'],
      ['Which colours do the widgets come in?', 'Widgets come in red, blue and green.'],
    ]);
    const { session, update } = await liveCallOfType([collection]);
    expect(update.tools.map((tool) => tool.name)).toContain('search_knowledge');
    expect(update.instructions).toMatch(/call search_knowledge/);
    await session.waitFor('response.create');

    session.responseCreated('resp_1');
    const callId = session.functionCall('resp_1', 'search_knowledge', { query: 'what does installation cost' });
    session.responseDone('resp_1');
    const output = await session.waitFor('conversation.item.create');
    expect(output.item).toMatchObject({ type: 'function_call_output', call_id: callId });
    const answer = JSON.parse((output.item as { output: string }).output);
    expect(answer).toEqual({ ok: true, passages: [{ text: expect.stringContaining('480 euros'), source: 'How much does installation cost?' }] });
    await session.waitFor('response.create', 2);

    session.responseCreated('resp_2');
    const none = session.functionCall('resp_2', 'search_knowledge', { query: 'do you ship to Norway' });
    session.responseDone('resp_2');
    const empty = await session.waitFor('conversation.item.create', 2);
    expect(empty.item).toMatchObject({ call_id: none });
    expect(JSON.parse((empty.item as { output: string }).output)).toMatchObject({ ok: true, passages: [] });
  });

  it('a type without knowledge has no such tool', async () => {
    const { update } = await liveCallOfType([]);
    expect(update.tools.map((tool) => tool.name)).not.toContain('search_knowledge');
  });
});
