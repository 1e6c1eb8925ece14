import { z } from 'zod';
import { APP_CONFIG_KEYS } from '../enums.ts';

/** Admin-configured texts are HTML fragments; 200 kB is far beyond any real page. */
export const APP_CONFIG_VALUE_MAX = 200_000;

export const appConfigQuery = z.object({ key: z.enum(APP_CONFIG_KEYS).optional() });
export const appConfigSaveBody = z.object({
  key: z.enum(APP_CONFIG_KEYS),
  value: z.string().max(APP_CONFIG_VALUE_MAX, 'Value is too long'),
});
export const appConfigEntry = z.object({ key: z.string(), value: z.string() });
export const appConfigList = z.object({ values: z.array(appConfigEntry) });
export type AppConfigEntry = z.infer<typeof appConfigEntry>;
