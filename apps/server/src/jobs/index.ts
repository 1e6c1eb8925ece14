import type { z } from 'zod';
import { followUpJob } from '../agent/follow-up.job.ts';
import { FOLLOW_UP_JOB } from '../agent/follow-up.ts';
import { ANALYSIS_JOB, CRM_BOOKED_STAGE_JOB, CRM_LEAD_FIELDS_JOB, CRM_WRITE_BACK_JOB } from '../conversations/conversation-outcome.ts';
import { analysisJob } from '../agent/outcome-analysis.ts';
import { TURN_JOB, turnJob } from '../agent/turn.job.ts';
import { deliverJob } from '../channels/deliver.job.ts';
import { DELIVER_JOB } from '../channels/delivery-keys.ts';
import { inboundJob } from '../channels/inbound.job.ts';
import { INBOUND_JOB } from '../channels/inbox.ts';
import { TOKEN_REFRESH_JOB, tokenRefreshJob } from '../modules/meta-auth/token-refresh.job.ts';
import { crmWriteBackJob } from '../modules/crm/crm-write-back.job.ts';
import { crmBookedStageJob } from '../modules/crm/crm-booked-stage.job.ts';
import { crmLeadFieldsJob } from '../modules/crm/crm-lead-fields.job.ts';
import { crmDndJob } from '../modules/crm/crm-dnd.job.ts';
import { CRM_DND_JOB } from '../conversations/opt-out.ts';
import { RECORDING_JOB, recordingJob } from '../voice/recording.job.ts';
import { ENDED_CALL_JOB, endedCallJob } from '../voice/realtime/ended-call.job.ts';
import { KNOWLEDGE_INGEST_JOB, knowledgeIngestJob } from '../knowledge/ingest.job.ts';
import { KNOWLEDGE_EMBED_JOB, knowledgeEmbedJob } from '../knowledge/embed.job.ts';
import { MAINTENANCE_JOB, maintenanceJob } from './maintenance.ts';
import { WEBHOOK_DELIVER_JOB } from '../lib/webhook-outbox.ts';
import { webhookDeliverJob } from '../webhooks/deliver.job.ts';
import { TEST_RUN_JOB, testRunJob } from '../modules/agent-tests/test-run.job.ts';
import { CAMPAIGN_TICK_JOB } from '../modules/campaigns/campaign-tick.ts';
import { campaignTickJob } from '../modules/campaigns/campaign-tick.job.ts';
import type { JobDefinition } from './runner.ts';

/**
 * Every job the runner knows, by name; each module adds its definitions here. `slow` marks the jobs that wait
 * on an outside service for seconds (an LLM, a CRM, a recording): together they never take every slot.
 */
const registry = {
  [TURN_JOB]: { ...turnJob, slow: true },
  [FOLLOW_UP_JOB]: { ...followUpJob, slow: true },
  [ENDED_CALL_JOB]: { ...endedCallJob, slow: true },
  [ANALYSIS_JOB]: { ...analysisJob, slow: true },
  [CRM_WRITE_BACK_JOB]: { ...crmWriteBackJob, slow: true },
  [CRM_BOOKED_STAGE_JOB]: { ...crmBookedStageJob, slow: true },
  [CRM_LEAD_FIELDS_JOB]: { ...crmLeadFieldsJob, slow: true },
  [CRM_DND_JOB]: { ...crmDndJob, slow: true },
  [RECORDING_JOB]: { ...recordingJob, slow: true },
  [TOKEN_REFRESH_JOB]: { ...tokenRefreshJob, slow: true },
  // One at a time per process: a prospect's messages are stored in the order they came (runner.ts `serial`).
  [INBOUND_JOB]: { ...inboundJob, serial: true },
  [DELIVER_JOB]: deliverJob,
  [MAINTENANCE_JOB]: maintenanceJob,
  // Outbound webhooks (issue 27): quick (a 10 s timeout at most), never behind the LLM turns.
  [WEBHOOK_DELIVER_JOB]: webhookDeliverJob,
  [KNOWLEDGE_INGEST_JOB]: { ...knowledgeIngestJob, slow: true },
  [KNOWLEDGE_EMBED_JOB]: { ...knowledgeEmbedJob, slow: true },
  [TEST_RUN_JOB]: { ...testRunJob, slow: true },
  // Outbound campaigns (issue 23): one tick per running campaign; a tick may wait on Twilio for a call.
  [CAMPAIGN_TICK_JOB]: campaignTickJob,
};

/** Name → payload of every job: what `ctx.jobs.enqueue(name, payload)` is type-checked against. */
type RegistryPayloads = { [N in keyof typeof registry]: z.input<(typeof registry)[N]['payload']> };

declare module './runner.ts' {
  /** Name → payload of every job: what `ctx.jobs.enqueue(name, payload)` is type-checked against. */
  interface JobPayloads extends RegistryPayloads {}
}

export const jobDefinitions: JobDefinition[] = Object.values(registry) as JobDefinition[];
