import { and, desc, eq, inArray, isNull } from 'drizzle-orm';
import type { AbTest, AbTestList, AbTestStartBody } from '@sales-agent/shared/schemas/ab-tests';
import type { Actor, AppContext } from '../../context.ts';
import { abTests, conversationTypes, conversationTypeVersions } from '../../db/schema/index.ts';
import { isUniqueViolation } from '../../lib/db-errors.ts';
import { badRequest, conflict } from '../../lib/errors.ts';
import { typeNotFound } from '../conversation-types/conversation-types.service.ts';
import { versionNotFound } from '../conversation-types/type-versions.service.ts';

/**
 * A/B tests of playbooks (issue 26, docs/analytics.md "A/B tests"). The split itself happens where a conversation
 * is created (conversation-store.ts startingVersion): this module only starts, lists and stops tests.
 */

type Row = typeof abTests.$inferSelect;

export function presentAbTest(row: Row): AbTest {
  return {
    id: row.id,
    conversationTypeId: row.conversationTypeId,
    versionA: row.versionA,
    versionB: row.versionB,
    weightB: row.weightB,
    winner: row.winner ?? null,
    startedAt: row.startedAt.toISOString(),
    stoppedAt: row.stoppedAt?.toISOString() ?? null,
    running: row.stoppedAt === null,
  };
}

async function assertType(ctx: AppContext, typeId: number): Promise<void> {
  const [type] = await ctx.db.select({ id: conversationTypes.id }).from(conversationTypes).where(eq(conversationTypes.id, typeId));
  if (!type) throw typeNotFound();
}

const running = () => conflict('An A/B test of this conversation type is already running. Stop it before starting another.', 'AB_TEST_RUNNING');

/** Starts splitting new conversations of the type between two of its published versions. */
export async function startAbTest(ctx: AppContext, typeId: number, body: AbTestStartBody, actor: Actor | null): Promise<AbTest> {
  await assertType(ctx, typeId);
  if (body.versionA === body.versionB) throw badRequest('Choose two different versions to compare.');
  const found = await ctx.db
    .select({ version: conversationTypeVersions.version })
    .from(conversationTypeVersions)
    .where(and(eq(conversationTypeVersions.conversationTypeId, typeId), inArray(conversationTypeVersions.version, [body.versionA, body.versionB])));
  for (const version of [body.versionA, body.versionB]) {
    if (!found.some((f) => f.version === version)) throw versionNotFound(version);
  }
  const [existing] = await ctx.db.select({ id: abTests.id }).from(abTests).where(and(eq(abTests.conversationTypeId, typeId), isNull(abTests.stoppedAt)));
  if (existing) throw running();
  try {
    const [row] = await ctx.db
      .insert(abTests)
      .values({ conversationTypeId: typeId, versionA: body.versionA, versionB: body.versionB, weightB: body.weightB, createdByUserId: actor?.id ?? null })
      .returning();
    return presentAbTest(row);
  } catch (err) {
    // Two admins at once: the partial unique index keeps one running test per type.
    if (isUniqueViolation(err, 'ab_tests_one_running_per_type')) throw running();
    throw err;
  }
}

/** The type's tests, newest first, and the running one. */
export async function listAbTests(ctx: AppContext, typeId: number): Promise<AbTestList> {
  await assertType(ctx, typeId);
  const rows = await ctx.db.select().from(abTests).where(eq(abTests.conversationTypeId, typeId)).orderBy(desc(abTests.id));
  const tests = rows.map(presentAbTest);
  return { running: tests.find((t) => t.running) ?? null, tests };
}

/**
 * Stops the running test: from now on every new conversation of the type starts on the winner's version (until a
 * newer version is published); conversations already split keep their version and arm.
 */
export async function stopAbTest(ctx: AppContext, typeId: number, winner: 'A' | 'B'): Promise<AbTest> {
  await assertType(ctx, typeId);
  const [row] = await ctx.db
    .update(abTests)
    .set({ stoppedAt: new Date(), winner })
    .where(and(eq(abTests.conversationTypeId, typeId), isNull(abTests.stoppedAt)))
    .returning();
  if (!row) throw conflict('No A/B test of this conversation type is running.', 'AB_TEST_NOT_RUNNING');
  return presentAbTest(row);
}
