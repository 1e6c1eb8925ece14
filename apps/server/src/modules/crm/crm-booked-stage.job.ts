import { z } from 'zod';
import { CRM_BOOKED_STAGE_JOB } from '../../conversations/conversation-outcome.ts';
import type { JobDefinition } from '../../jobs/runner.ts';
import { readCrmSettings } from './crm-config.ts';
import { crmContactOf, ghlClientOrSkip } from './crm-contact-job.ts';
import { moveContactOpportunities } from './crm-write-back.job.ts';

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
    const row = await crmContactOf(ctx, conversationId);
    if (!row) return;
    const stageId = readCrmSettings(row.config).stageOnOutcome.booked;
    if (!stageId) return;
    const client = ghlClientOrSkip(ctx, row.config, conversationId, 'CRM booked stage');
    if (!client) return;
    await moveContactOpportunities(client, row.contactId, stageId);
  },
};
