import type { FastifyBaseLogger } from 'fastify';
import type { AppConfig } from './config/env.ts';
import type { Database, Db } from './db/client.ts';
import type { SecretBox } from './lib/crypto.ts';
import type { EventBus } from './lib/events.ts';
import type { Limits } from './lib/limits.ts';
import type { JobRunner } from './jobs/runner.ts';

/**
 * What every service receives as its first argument: configuration and infrastructure, never HTTP.
 * Built once in buildApp and shared by routes, jobs and the agent.
 */
export interface AppContext {
  config: AppConfig;
  database: Database;
  db: Db;
  log: FastifyBaseLogger;
  secrets: SecretBox;
  events: EventBus;
  /** Rate-limit counters and caps, shared by every instance on PostgreSQL (lib/limits.ts). */
  limits: Limits;
  jobs: JobRunner;
}

declare module './jobs/runner.ts' {
  /** Job handlers get the whole context; declared from this side so jobs/runner.ts needs no import of this file. */
  interface JobContext extends AppContext {}
}

/** The signed-in user as routes and services see it. */
export interface Actor {
  id: number;
  email: string;
  role: 'ADMIN' | 'NORMAL';
}
