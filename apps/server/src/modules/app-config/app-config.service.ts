import { eq } from 'drizzle-orm';
import type { AppConfigKey } from '@sales-agent/shared/enums';
import type { AppContext } from '../../context.ts';
import { appConfig } from '../../db/schema/index.ts';

/** App texts are public by nature (register page, onboarding, support message, global notice). */
export async function readAppConfig(ctx: AppContext, key?: AppConfigKey) {
  const query = ctx.db.select({ key: appConfig.key, value: appConfig.value }).from(appConfig);
  return key ? query.where(eq(appConfig.key, key)) : query.orderBy(appConfig.key);
}

export async function saveAppConfig(ctx: AppContext, key: AppConfigKey, value: string): Promise<void> {
  await ctx.db
    .insert(appConfig)
    .values({ key, value })
    .onConflictDoUpdate({ target: appConfig.key, set: { value, updatedAt: new Date() } });
}
