import { followUpJob } from '../agent/follow-up.job.ts';
import { turnJob } from '../agent/turn.job.ts';
import type { JobDefinition } from './runner.ts';

/** Every job the runner knows; each module adds its definitions here. */
export const jobDefinitions: JobDefinition[] = [turnJob as JobDefinition, followUpJob as JobDefinition];
