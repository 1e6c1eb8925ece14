import { eq } from 'drizzle-orm';
import { z } from 'zod';
import type { AppContext } from '../context.ts';
import { webhookInbox } from '../db/schema/index.ts';
import type { JobDefinition } from '../jobs/runner.ts';
import { INBOUND_JOB, type InboxSource, markInboxProcessed } from './inbox.ts';
import { type InboundEvent, parseMetaPayload, parseSmsGatewayEvent, parseTwilioSms } from './inbound-events.ts';
import { receiveInboundEvent } from './receive.ts';

function eventsOf(source: InboxSource, payload: unknown): InboundEvent[] {
  switch (source) {
    case 'meta':
      return parseMetaPayload(payload);
    case 'twilio':
      return parseTwilioSms(payload as Record<string, string>);
    case 'sms-gateway':
      return parseSmsGatewayEvent(payload);
  }
}

/**
 * Processes one stored provider request: every event in it, in order. At-least-once: after a crash the job
 * runs again and each event already stored is recognised by its (account, external id) claim.
 */
export const inboundJob: JobDefinition<z.ZodObject<{ inboxId: z.ZodNumber }>> = {
  name: INBOUND_JOB,
  payload: z.object({ inboxId: z.number().int().positive() }),
  async handler(ctx: AppContext, { inboxId }) {
    const [row] = await ctx.db.select().from(webhookInbox).where(eq(webhookInbox.id, inboxId)).limit(1);
    if (!row || row.processedAt) return;
    const outcomes: string[] = [];
    const events = eventsOf(row.source as InboxSource, row.payload);
    for (const event of events) {
      outcomes.push(await receiveInboundEvent(ctx, event, { simulated: row.simulated }));
    }
    await markInboxProcessed(ctx, inboxId, events.map((event) => event.externalId));
    ctx.log.debug({ inboxId, source: row.source, outcomes }, 'inbound webhook processed');
  },
};
