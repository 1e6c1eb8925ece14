import { index, integer, jsonb, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { conversationTypes } from './playbooks.ts';
import { users } from './users.ts';
import { serialId, timestampNow, ownedBy, optionalRef } from './columns.ts';

/**
 * What one published version of a playbook holds (issue 25, docs/playbook-versions.md): the type's prompts,
 * config text (secrets stay sealed), phases and knowledge links, frozen.
 */
export interface PlaybookSnapshot {
  rolePrompt: string;
  triggerConversationPrompt: string | null;
  checkingPrompt: string | null;
  errorPrompt: string;
  initialMessage: string | null;
  config: string;
  phases: { index: number; prompt: string; transitionPrompt: string; followUpPrompt: string | null }[];
  knowledgeCollectionIds: number[];
}

/**
 * An immutable, numbered published version of a conversation type's playbook (issue 25). The type's own row,
 * phases and knowledge links are the draft; a conversation pins the version it started on (conversations.type_version).
 */
export const conversationTypeVersions = pgTable(
  'conversation_type_versions',
  {
    id: serialId(),
    conversationTypeId: ownedBy(() => conversationTypes.id),
    version: integer().notNull(),
    note: text(),
    snapshot: jsonb().$type<PlaybookSnapshot>().notNull(),
    createdByUserId: optionalRef(() => users.id),
    createdAt: timestampNow(),
  },
  (t) => [uniqueIndex('conversation_type_versions_type_version_unique').on(t.conversationTypeId, t.version)],
);

/** An ADMIN's test scenario of a type (issue 25): a simulated prospect and the criteria a run must meet. */
export const agentTestScenarios = pgTable(
  'agent_test_scenarios',
  {
    id: serialId(),
    conversationTypeId: ownedBy(() => conversationTypes.id),
    name: text().notNull(),
    /** The scenario as in a scenarios file: {name, opening, messages?, persona?, maxTurns?, criteria}. */
    definition: jsonb().notNull(),
    createdAt: timestampNow(),
  },
  (t) => [index().on(t.conversationTypeId)],
);

/**
 * One batch of scenario runs against a version (`draft` or N) of a type: its progress and final report (JSON,
 * the same document the CLI's --json prints). The transcripts live only here, never in conversations.
 */
export const agentTestRuns = pgTable(
  'agent_test_runs',
  {
    id: serialId(),
    conversationTypeId: ownedBy(() => conversationTypes.id),
    /** 'draft' or the version number as text. */
    version: text().notNull(),
    status: text().$type<'running' | 'done' | 'failed'>().notNull().default('running'),
    total: integer().notNull().default(0),
    finished: integer().notNull().default(0),
    passRate: text(),
    report: jsonb(),
    error: text(),
    createdAt: timestampNow(),
  },
  (t) => [index().on(t.conversationTypeId)],
);
