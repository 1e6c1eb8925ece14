import type { JobDefinition } from './runner.ts';

/** Every job the runner knows; each module adds its definitions here. */
export const jobDefinitions: JobDefinition[] = [];
