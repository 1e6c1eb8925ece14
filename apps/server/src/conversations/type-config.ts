import { eq } from 'drizzle-orm';
import type { Executor } from '../db/executor.ts';
import { conversationTypes } from '../db/schema/index.ts';

/**
 * A conversation type's config as stored (JSON text; callers parse it with readConversationTypeConfig or read
 * its sealed secrets). Undefined when the type does not exist or none is given (`null`, `undefined` or 0).
 */
export async function typeConfigText(db: Executor, typeId: number | null | undefined): Promise<string | undefined> {
  if (!typeId) return undefined;
  const [type] = await db.select({ config: conversationTypes.config }).from(conversationTypes).where(eq(conversationTypes.id, typeId)).limit(1);
  return type?.config;
}
