import type { CrmContactsAnswer, CrmPipeline, crmContactsQuery } from '@sales-agent/shared/schemas/crm';
import type { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { typeConfigText } from '../../conversations/type-config.ts';
import { badRequest } from '../../lib/errors.ts';
import { typeNotFound } from '../conversation-types/conversation-types.service.ts';
import { openApiKey, readCrmSettings } from './crm-config.ts';
import { GhlClient, type GhlCredentials, type GhlOpportunity } from './ghl.client.ts';

type ContactsQuery = z.output<typeof crmContactsQuery>;

/**
 * The GoHighLevel credentials of a CRM-linked type: `apiKey`/`locationId` from its config, each falling back
 * to GHL_API_KEY/GHL_LOCATION_ID (the only source for the bare "GHL" config). 400 when the type is not
 * CRM-linked or a credential is missing.
 */
export function credentialsOf(ctx: AppContext, configText: string | null | undefined): GhlCredentials {
  const settings = readCrmSettings(configText);
  if (!settings.linked) {
    throw badRequest(
      'This conversation type is not linked to a CRM. Set its config to "GHL" or {"crm": "GHL", "locationId": "…", "apiKey": "…"}.',
      'CRM_NOT_LINKED',
    );
  }
  let apiKey = ctx.config.GHL_API_KEY;
  if (settings.sealedApiKey !== undefined) {
    const opened = openApiKey(ctx, settings.sealedApiKey);
    if (opened === null) {
      throw badRequest('The stored GoHighLevel apiKey can no longer be read (APP_SECRET changed); enter it again in the config.', 'CRM_NOT_CONFIGURED');
    }
    apiKey = opened;
  }
  const locationId = settings.locationId ?? ctx.config.GHL_LOCATION_ID;
  if (!apiKey) throw badRequest('No GoHighLevel API key: set "apiKey" in this type\'s config, or GHL_API_KEY on the server.', 'CRM_NOT_CONFIGURED');
  if (!locationId) {
    throw badRequest('No GoHighLevel location: set "locationId" in this type\'s config, or GHL_LOCATION_ID on the server.', 'CRM_NOT_CONFIGURED');
  }
  return { apiKey, locationId };
}

/** The type's GoHighLevel client (404 unknown type, 400 not CRM-linked or not configured). */
export async function ghlClientForType(ctx: AppContext, typeId: number): Promise<{ client: GhlClient; config: string }> {
  const config = await typeConfigText(ctx.db, typeId);
  if (config === undefined) throw typeNotFound();
  return { client: new GhlClient(ctx, credentialsOf(ctx, config)), config };
}

/** Spec §7.3 pipelines: each with its stages, fields picked one by one. */
export async function listPipelines(ctx: AppContext, typeId: number): Promise<CrmPipeline[]> {
  const { client } = await ghlClientForType(ctx, typeId);
  const pipelines = await client.listPipelines();
  return pipelines.map((p) => ({
    id: String(p.id),
    name: String(p.name ?? ''),
    stages: (p.stages ?? []).map((s) => ({ id: String(s.id), name: String(s.name ?? '') })),
  }));
}

/**
 * Spec §7.3 contacts: one page of the pipeline's (or stage's) opportunities. The cursor is passed through;
 * on the last page it is null, so the page can disable Next without guessing (spec §5).
 */
export async function listPipelineContacts(ctx: AppContext, typeId: number, query: ContactsQuery): Promise<CrmContactsAnswer> {
  const { client } = await ghlClientForType(ctx, typeId);
  const { opportunities, meta } = await client.searchOpportunities({
    pipelineId: query.pipelineId,
    stageId: query.stageId,
    limit: query.limit,
    startAfter: query.startAfter,
    startAfterId: query.startAfterId,
  });
  const total = Number.isFinite(Number(meta.total)) ? Number(meta.total) : opportunities.length;
  // GoHighLevel sends nextPage null on the last page; a short page is the last one too.
  const nextPage = (meta as { nextPage?: unknown }).nextPage;
  const last = nextPage === null || opportunities.length < query.limit || opportunities.length === 0;
  return {
    opportunities: opportunities.filter((o) => o.contact?.id).map(presentOpportunity),
    meta: {
      total,
      startAfter: last ? null : (meta.startAfter ?? null),
      startAfterId: last ? null : (meta.startAfterId ?? null),
    },
  };
}

function presentOpportunity(o: GhlOpportunity): CrmContactsAnswer['opportunities'][number] {
  const contact = o.contact ?? {};
  const phone = typeof contact.phone === 'string' && contact.phone.trim() ? contact.phone.trim() : null;
  const name = (typeof contact.name === 'string' && contact.name.trim()) || (typeof o.name === 'string' && o.name.trim()) || '(no name)';
  return { id: String(o.id), contact: { id: String(contact.id), name, phone } };
}
