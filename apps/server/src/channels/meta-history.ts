// TEMP placeholder of the lead (helper A replaces this file).
import type { ChannelAccount, ChannelEndpoints } from './types.ts';
export async function fetchMetaThread(_e: ChannelEndpoints, _a: ChannelAccount, _p: string): Promise<{ externalId: string; text: string; fromProspect: boolean; createdTime: Date }[]> {
  return [];
}
