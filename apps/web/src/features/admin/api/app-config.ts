import { queryOptions, useQueryClient } from '@tanstack/react-query';
import type { AppConfigKey } from '@sales-agent/shared/enums';
import type { AppConfigEntry } from '@sales-agent/shared/schemas/app-config';
import { api } from '../../../lib/api-client.ts';
import { useWrite } from '../../../lib/use-write.ts';

export const appConfigKeys = { entry: (key: AppConfigKey) => ['app-config', key] as const, health: () => ['health'] as const };

/** One app text by key (spec §7.2: values[0].value), '' when never saved. */
export const appConfigQuery = (key: AppConfigKey) =>
  queryOptions({
    queryKey: appConfigKeys.entry(key),
    queryFn: async () => (await api.get<{ values: AppConfigEntry[] }>('/api/app-config', { key })).values[0]?.value ?? '',
    staleTime: 60_000,
  });

/** Saves one app text; the cached value becomes the saved one at once (no refetch). */
export function useSaveAppConfig(key: AppConfigKey) {
  const client = useQueryClient();
  return useWrite({
    write: async (value: string) => {
      const answer = await api.post<{ message: string }>('/api/admin/app-config', { key, value });
      client.setQueryData(appConfigKeys.entry(key), value);
      return answer;
    },
  });
}
