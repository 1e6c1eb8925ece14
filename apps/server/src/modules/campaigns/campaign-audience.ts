import type { AppContext } from '../../context.ts';
import { AppError } from '../../lib/errors.ts';
import { GhlClient } from '../crm/ghl.client.ts';
import { credentialsOf } from '../crm/crm.service.ts';
import { CAMPAIGN_MAX_CONTACTS } from '@sales-agent/shared/schemas/campaigns';

type RawContact = { phone: string; name?: string };
/** GoHighLevel's largest page of opportunities/search. */
const PAGE = 100;

/**
 * A campaign's audience from a GoHighLevel pipeline stage (docs/campaigns.md "Audience"): every opportunity in
 * the stage (GET /opportunities/search?location_id&pipeline_stage_id, cursor paged by startAfter/startAfterId),
 * read once when the campaign is created, with the type's GHL credentials. Each opportunity's contact gives a
 * phone and a name; one without a phone comes back as an empty phone, so it is listed among the skipped rows.
 */
export async function contactsOfGhlStage(ctx: AppContext, typeConfig: string | null, stageId: string): Promise<RawContact[]> {
  const client = new GhlClient(ctx, credentialsOf(ctx, typeConfig));
  const contacts: RawContact[] = [];
  let cursor: { startAfter?: string; startAfterId?: string } = {};
  for (;;) {
    const { opportunities, meta } = await client.searchOpportunities({ stageId, limit: PAGE, ...cursor });
    for (const o of opportunities) {
      const phone = typeof o.contact?.phone === 'string' ? o.contact.phone.trim() : '';
      const name = (typeof o.contact?.name === 'string' && o.contact.name.trim()) || undefined;
      contacts.push({ phone, name });
    }
    if (contacts.length > CAMPAIGN_MAX_CONTACTS) {
      throw new AppError(400, 'CAMPAIGN_CSV_INVALID', `This pipeline stage has more than ${CAMPAIGN_MAX_CONTACTS} opportunities; a campaign takes at most ${CAMPAIGN_MAX_CONTACTS}.`);
    }
    // A short page, or no cursor to go on from, is the last one (GoHighLevel's nextPage is null there).
    const last = opportunities.length < PAGE || (meta as { nextPage?: unknown }).nextPage === null || meta.startAfterId == null;
    if (last) return contacts;
    cursor = { startAfter: String(meta.startAfter), startAfterId: String(meta.startAfterId) };
  }
}
