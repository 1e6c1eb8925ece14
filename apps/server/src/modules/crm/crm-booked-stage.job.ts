import { eq } from 'drizzle-orm';
import { z } from 'zod';
import { CRM_BOOKED_STAGE_JOB } from '../../conversations/conversation-outcome.ts';
import { conversations, conversationTypes } from '../../db/schema/index.ts';
import type { JobDefinition } from '../../jobs/runner.ts';
import { AppError } from '../../lib/errors.ts';
import { readCrmSettings } from './crm-config.ts';
import { moveContactOpportunities } from './crm-write-back.job.ts';
import { credentialsOf } from './crm.service.ts';
import { GhlClient } from './ghl.client.ts';

const payload = z.object({ conversationId: z.number().int().positive() });

/**
 * The agent booked a meeting for a CRM contact (issue 22): the contact's opportunity moves to the stage the
 * type's `stageOnOutcome.booked` names (docs/crm.md), as soon as the booking commits. Idempotent like the
 * write-back's move: an opportunity already there is left alone. No `booked` stage: nothing to do.
 */
export const crmBookedStageJob: JobDefinition<typeof payload> = {
  name: CRM_BOOKED_STAGE_JOB,
  payload,
  async handler(ctx, { conversationId }) {
    const [row] = await ctx.db
      .select({ contactId: conversations.crmContactId, config: conversationTypes.config })
      .from(conversations)
      .innerJoin(conversationTypes, eq(conversationTypes.id, conversations.conversationTypeId))
      .where(eq(conversations.id, conversationId));
    if (!row?.contactId || row.config === null) return;
    const stageId = readCrmSettings(row.config).stageOnOutcome.booked;
    if (!stageId) return;
    let client: GhlClient;
    try {
      client = new GhlClient(ctx, credentialsOf(ctx, row.config));
    } catch (err) {
      if (err instanceof AppError && err.status === 400) {
        ctx.log.warn({ conversationId, code: err.code }, 'CRM booked stage skipped');
        return;
      }
      throw err;
    }
    await moveContactOpportunities(client, row.contactId, stageId);
  },
};
