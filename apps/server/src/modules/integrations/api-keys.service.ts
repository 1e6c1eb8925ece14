import { and, desc, eq, isNull, sql } from 'drizzle-orm';
import type { ApiKeyCreateBody, ApiKeyCreated, ApiKeyView } from '@sales-agent/shared/schemas/integrations';
import type { Actor, AppContext } from '../../context.ts';
import { apiKeys, users } from '../../db/schema/index.ts';
import { randomToken, sha256Hex } from '../../lib/crypto.ts';
import { AppError, notFound } from '../../lib/errors.ts';

/** Every key starts so: a secret scanner (and a person) can tell what leaked. */
export const API_KEY_PREFIX = 'sak_';
/** Characters of the key the list shows (the prefix and the first random ones). */
const SHOWN = API_KEY_PREFIX.length + 6;
/** last_used_at is written at most this often per key: one extra statement per minute, not per request. */
const LAST_USED_EVERY_MS = 60_000;

type Row = typeof apiKeys.$inferSelect & { creatorEmail: string | null };

function present(row: Row): ApiKeyView {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    scopes: row.scopes,
    createdBy: row.creatorEmail === null ? null : { id: row.createdBy, email: row.creatorEmail },
    createdAt: row.createdAt.toISOString(),
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
    revokedAt: row.revokedAt?.toISOString() ?? null,
  };
}

/** Creates a key for `actor`; the answer is the only place the key ever appears (its SHA-256 is stored). */
export async function createApiKey(ctx: AppContext, actor: Actor, input: ApiKeyCreateBody): Promise<ApiKeyCreated> {
  // 32 random bytes: a hash without salt or stretching is enough for a key nobody can guess (unlike a password).
  const key = `${API_KEY_PREFIX}${randomToken(32)}`;
  const [row] = await ctx.db
    .insert(apiKeys)
    .values({ name: input.name, prefix: key.slice(0, SHOWN), keyHash: sha256Hex(key), scopes: [...new Set(input.scopes)], createdBy: actor.id })
    .returning();
  return { ...present({ ...row, creatorEmail: actor.email }), key };
}

export async function listApiKeys(ctx: AppContext): Promise<ApiKeyView[]> {
  const rows = await ctx.db
    .select({ key: apiKeys, creatorEmail: users.email })
    .from(apiKeys)
    .leftJoin(users, eq(users.id, apiKeys.createdBy))
    .orderBy(desc(apiKeys.id));
  return rows.map((r) => present({ ...r.key, creatorEmail: r.creatorEmail }));
}

/** Revokes a key: the next request with it is refused on every instance (keys are looked up per request). */
export async function revokeApiKey(ctx: AppContext, id: number): Promise<void> {
  const rows = await ctx.db.update(apiKeys).set({ revokedAt: sql`coalesce(${apiKeys.revokedAt}, now())` }).where(eq(apiKeys.id, id)).returning({ id: apiKeys.id });
  if (rows.length === 0) throw notFound('There is no such API key.', 'API_KEY_NOT_FOUND');
}

export interface KeyActor {
  actor: Actor;
  keyId: number;
  scopes: string[];
}

/**
 * The creator (as they are now: role changes apply at once) and scopes of a live key, or a 401. Asked of the
 * database on every request, without a cache, so a revocation holds at once on every instance; the lookup is
 * one unique-index probe.
 */
export async function authenticateApiKey(ctx: AppContext, key: string): Promise<KeyActor> {
  const [row] = await ctx.db
    .select({ id: apiKeys.id, scopes: apiKeys.scopes, lastUsedAt: apiKeys.lastUsedAt, userId: users.id, email: users.email, role: users.role })
    .from(apiKeys)
    .innerJoin(users, eq(users.id, apiKeys.createdBy))
    .where(and(eq(apiKeys.keyHash, sha256Hex(key)), isNull(apiKeys.revokedAt)))
    .limit(1);
  if (!row) throw new AppError(401, 'API_KEY_INVALID', 'This API key is not valid (unknown or revoked).');
  if (!row.lastUsedAt || Date.now() - row.lastUsedAt.getTime() >= LAST_USED_EVERY_MS) {
    await ctx.db.update(apiKeys).set({ lastUsedAt: new Date() }).where(eq(apiKeys.id, row.id));
  }
  return { actor: { id: row.userId, email: row.email, role: row.role }, keyId: row.id, scopes: row.scopes };
}
