import { followUpJob } from '../agent/follow-up.job.ts';
import { turnJob } from '../agent/turn.job.ts';
import { deliverJob } from '../channels/deliver.job.ts';
import { inboundJob } from '../channels/inbound.job.ts';
import { tokenRefreshJob } from '../modules/meta-auth/token-refresh.job.ts';
import { crmWriteBackJob } from '../modules/crm/crm-write-back.job.ts';
import { recordingJob } from '../voice/recording.job.ts';
import { endedCallJob } from '../voice/realtime/ended-call.job.ts';
import type { JobDefinition } from './runner.ts';

/** Every job the runner knows; each module adds its definitions here. */
export const jobDefinitions: JobDefinition[] = [turnJob as JobDefinition, followUpJob as JobDefinition, inboundJob as JobDefinition, deliverJob as JobDefinition, tokenRefreshJob as JobDefinition, crmWriteBackJob as JobDefinition, recordingJob as JobDefinition, endedCallJob as JobDefinition];
