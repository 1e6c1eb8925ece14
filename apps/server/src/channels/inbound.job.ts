import { eq } from 'drizzle-orm';
import { z } from 'zod';
import type { AppContext } from '../context.ts';
import { webhookInbox } from '../db/schema/index.ts';
import type { JobDefinition } from '../jobs/runner.ts';
import { INBOUND_JOB, type InboxSource, markInboxProcessed } from './inbox.ts';
import { type InboundEvent, parseMetaPayload, parseSmsGatewayEvent, parseTwilioSms } from './inbound-events.ts';
import { parseSmsGatewayStatus, parseTwilioStatus } from './delivery-events.ts';
import { redactText } from '../lib/redact.ts';
import { receiveInboundEvent } from './receive.ts';

function eventsOf(source: InboxSource, payload: unknown): InboundEvent[] {
  switch (source) {
    case 'meta':
      return parseMetaPayload(payload);
    case 'twilio':
      return parseTwilioSms(payload as Record<string, string>);
    case 'twilio-status':
      return parseTwilioStatus(payload as Record<string, string>);
    case 'sms-gateway':
      return [...parseSmsGatewayEvent(payload), ...parseSmsGatewayStatus(payload)];
  }
}

/**
 * Processes one stored provider request: every event in it, in order, each on its own. At-least-once: after a
 * crash the job runs again and each event already stored is recognised by its (account, external id) claim.
 * One event that fails (a poison event, a bug) does not take the others down with it: they are stored and
 * answered, the failing ones are recorded on the inbox row (`error`) and logged, and the job fails so the
 * runner tries again after its backoff (the events already stored are then duplicates and skipped).
 */
export const inboundJob: JobDefinition<z.ZodObject<{ inboxId: z.ZodNumber }>> = {
  name: INBOUND_JOB,
  payload: z.object({ inboxId: z.number().int().positive() }),
  async handler(ctx: AppContext, { inboxId }) {
    const [row] = await ctx.db.select().from(webhookInbox).where(eq(webhookInbox.id, inboxId)).limit(1);
    if (!row || row.processedAt) return;
    const outcomes: string[] = [];
    const failures: string[] = [];
    const events = eventsOf(row.source as InboxSource, row.payload);
    for (const [index, event] of events.entries()) {
      try {
        outcomes.push(await receiveInboundEvent(ctx, event, { simulated: row.simulated }));
      } catch (err) {
        outcomes.push('failed');
        const message = err instanceof Error ? err.message : String(err);
        failures.push(`event ${index + 1} of ${events.length} (${event.kind} ${event.externalId}): ${message}`);
        ctx.log.error({ err, inboxId, source: row.source, event: index, externalId: event.externalId }, 'inbound webhook event failed');
      }
    }
    if (failures.length > 0) {
      await ctx.db.update(webhookInbox).set({ error: redactText(failures.join('\n')).slice(0, 4000) }).where(eq(webhookInbox.id, inboxId));
      throw new Error(`${failures.length} of ${events.length} events of webhook ${inboxId} failed: ${failures[0]}`.slice(0, 2000));
    }
    await markInboxProcessed(ctx, inboxId, events.map((event) => event.externalId));
    ctx.log.debug({ inboxId, source: row.source, outcomes }, 'inbound webhook processed');
  },
};
