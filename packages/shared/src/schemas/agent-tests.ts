import { z } from 'zod';

/**
 * Issue 25: playbook versions and agent test scenarios. The scenarios file shape and the criteria kinds are a
 * contract (`npm run agent:test -- --scenarios file.json`, docs/agent-tests.md): keep the names.
 */
export const criterionSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('reachesPhase'), phase: z.number().int().min(0) }),
  z.object({ kind: z.literal('ended') }),
  z.object({ kind: z.literal('booked') }),
  z.object({ kind: z.literal('handedToHuman'), expected: z.boolean() }),
  z.object({ kind: z.literal('usedTool'), name: z.string().min(1) }),
  z.object({ kind: z.literal('neverSays'), text: z.string().min(1) }),
  z.object({ kind: z.literal('fieldFilled'), key: z.string().min(1), pattern: z.string().optional() }),
  z.object({ kind: z.literal('judge'), rubric: z.string().min(1) }),
  /** No agent message longer than `max` characters. */
  z.object({ kind: z.literal('maxLength'), max: z.number().int().positive() }),
]);
export type Criterion = z.infer<typeof criterionSchema>;

export const scenarioSchema = z
  .object({
    name: z.string().trim().min(1, 'name is required').max(200),
    opening: z.string().trim().min(1, 'opening is required').max(5000),
    /** A scripted prospect: what they write after the opening, one message per turn (no LLM needed). */
    messages: z.array(z.string().min(1).max(5000)).max(50).optional(),
    /** An LLM-played prospect: persona, goal, facts they know and how they behave. */
    persona: z.string().min(1).max(5000).optional(),
    maxTurns: z.number().int().min(1).max(50).optional(),
    criteria: z.array(criterionSchema).max(30),
    /** Recorded stand-ins for tools: what a tool answers in the sandbox (by tool name). */
    tools: z.record(z.string(), z.unknown()).optional(),
  })
  .refine((s) => s.messages !== undefined || s.persona !== undefined, 'a scenario needs messages (scripted) or a persona (LLM-played)');
export type Scenario = z.infer<typeof scenarioSchema>;

export const scenariosFileSchema = z.array(scenarioSchema);

export const versionRefParam = z.union([z.literal('draft'), z.coerce.number().int().positive().max(1_000_000)]);

export const publishBody = z.object({ note: z.string().max(2000).nullish() });

export const typeVersionParams = z.object({ id: z.coerce.number().int().positive().max(2_147_483_647), version: versionRefParam });
export const typeVersionNumberParams = z.object({
  id: z.coerce.number().int().positive().max(2_147_483_647),
  version: z.coerce.number().int().positive().max(1_000_000),
});
export const diffQuery = z.object({ from: versionRefParam, to: versionRefParam.default('draft') });

export const versionList = z.object({
  current: z.number().nullable(),
  versions: z.array(z.object({ version: z.number(), note: z.string().nullable(), createdAt: z.string(), createdBy: z.string().nullable() })),
});

export const playbookSnapshot = z.object({
  rolePrompt: z.string(),
  triggerConversationPrompt: z.string().nullable(),
  checkingPrompt: z.string().nullable(),
  errorPrompt: z.string(),
  initialMessage: z.string().nullable(),
  config: z.string(),
  phases: z.array(z.object({ index: z.number(), prompt: z.string(), transitionPrompt: z.string(), followUpPrompt: z.string().nullable() })),
  knowledgeCollectionIds: z.array(z.number()),
});

const diffLine = z.object({ op: z.enum([' ', '-', '+']), text: z.string() });
const fieldDiff = z.object({ field: z.string(), changed: z.boolean(), lines: z.array(diffLine) });
export const versionDiff = z.object({
  from: z.string(),
  to: z.string(),
  prompts: z.array(fieldDiff),
  phases: z.array(z.object({ index: z.number(), status: z.string(), fields: z.array(fieldDiff) })),
  config: z.array(z.object({ key: z.string(), before: z.string().nullable(), after: z.string().nullable() })),
  knowledge: z.object({ added: z.array(z.number()), removed: z.array(z.number()) }),
});

export const scenarioView = z.object({ id: z.number() }).and(z.record(z.string(), z.unknown()));
export const scenarioList = z.array(scenarioView);
export const scenarioParams = z.object({ id: z.coerce.number().int().positive().max(2_147_483_647), scenarioId: z.coerce.number().int().positive().max(2_147_483_647) });
export const startRunBody = z.object({
  version: versionRefParam.default('draft'),
  runs: z.number().int().min(1).max(20).default(1),
  scenarioIds: z.array(z.number().int().positive()).max(200).optional(),
});
export const testRunView = z.object({
  id: z.number(),
  conversationTypeId: z.number(),
  version: z.string(),
  status: z.string(),
  total: z.number(),
  finished: z.number(),
  passRate: z.number().nullable(),
  createdAt: z.string(),
  /** The report (as `agent:test --json` prints it) once every run finished. */
  report: z.record(z.string(), z.unknown()).nullable(),
});
export const testRunList = z.array(testRunView.omit({ report: true, conversationTypeId: true }));
export const publishStatusView = z.object({
  requiredPassRate: z.number().nullable(),
  lastRun: z.object({ id: z.number(), passRate: z.number() }).nullable(),
  allowed: z.boolean(),
});

/** Side by side (issue 25): the same scenarios run on two versions, one batch each. */
export const startComparisonBody = z
  .object({
    a: versionRefParam,
    b: versionRefParam.default('draft'),
    runs: z.number().int().min(1).max(20).default(1),
    scenarioIds: z.array(z.number().int().positive()).max(200).optional(),
  })
  .refine((body) => String(body.a) !== String(body.b), { message: 'pick two different versions to compare', path: ['b'] });
export const comparisonIds = z.object({ a: z.number(), b: z.number() });
export const compareParams = z.object({
  id: z.coerce.number().int().positive().max(2_147_483_647),
  otherId: z.coerce.number().int().positive().max(2_147_483_647),
});
const comparedRun = testRunView.omit({ report: true, conversationTypeId: true });
const sidePass = z.object({ passRate: z.number(), passed: z.boolean(), runs: z.number() }).nullable();
export const testRunComparison = z.object({
  conversationTypeId: z.number(),
  a: comparedRun,
  b: comparedRun,
  /** Both batches finished: `scenarios` is filled. */
  done: z.boolean(),
  /** Scenarios matched by name (one run only: the other side is null), criteria matched by their definition. */
  scenarios: z.array(
    z.object({
      name: z.string(),
      a: sidePass,
      b: sidePass,
      criteria: z.array(z.object({ criterion: z.record(z.string(), z.unknown()), a: z.number().nullable(), b: z.number().nullable() })),
    }),
  ),
});
