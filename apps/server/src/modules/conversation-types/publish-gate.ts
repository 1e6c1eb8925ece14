import { snapshotHash } from '../../agent/testing/run-batch.ts';
import { and, desc, eq } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import { draftSnapshot, type PlaybookSnapshot } from '../../conversations/playbook-versions.ts';
import { agentTestRuns } from '../../db/schema/index.ts';
import { conflict } from '../../lib/errors.ts';
import { typeNotFound } from './conversation-types.service.ts';

/** The pass rate a type's config requires before its draft may be published (`tests.minPassRate`), or null. */
export function requiredPassRate(configText: string): number | null {
  try {
    const value = JSON.parse(configText) as { tests?: { minPassRate?: unknown } };
    const rate = value?.tests?.minPassRate;
    return typeof rate === 'number' && rate >= 0 && rate <= 1 ? rate : null;
  } catch {
    return null;
  }
}

/** The newest finished run on the draft as it is now, with its pass rate; null when none. */
export async function lastDraftRun(ctx: AppContext, typeId: number, snapshot: PlaybookSnapshot) {
  const hash = snapshotHash(snapshot);
  const runs = await ctx.db
    .select()
    .from(agentTestRuns)
    .where(and(eq(agentTestRuns.conversationTypeId, typeId), eq(agentTestRuns.version, 'draft'), eq(agentTestRuns.status, 'done')))
    .orderBy(desc(agentTestRuns.id))
    .limit(20);
  const run = runs.find((r) => (r.report as { snapshotHash?: string } | null)?.snapshotHash === hash);
  return run ? { id: run.id, passRate: Number(run.passRate ?? 0) } : null;
}

/** 409 PUBLISH_TESTS_FAILING when the type requires a pass rate its draft has not (yet) reached. */
export async function assertPublishAllowed(ctx: AppContext, typeId: number): Promise<void> {
  const snapshot = await draftSnapshot(ctx.db, typeId);
  if (!snapshot) throw typeNotFound();
  const required = requiredPassRate(snapshot.config);
  if (required === null) return;
  const run = await lastDraftRun(ctx, typeId, snapshot);
  if (!run) throw conflict(`This type requires its scenarios to pass (${Math.round(required * 100)} %) before publishing; run them on the draft first.`, 'PUBLISH_TESTS_FAILING');
  if (run.passRate < required) {
    throw conflict(
      `The draft's last test run passed ${Math.round(run.passRate * 100)} %, below the required ${Math.round(required * 100)} %.`,
      'PUBLISH_TESTS_FAILING',
    );
  }
}
