import { and, eq, inArray, isNotNull } from 'drizzle-orm';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { CRM_DND_JOB } from '../../conversations/opt-out.ts';
import { conversations, conversationTypes, prospects } from '../../db/schema/index.ts';
import { AppError } from '../../lib/errors.ts';
import type { JobDefinition } from '../../jobs/runner.ts';
import { credentialsOf } from './crm.service.ts';
import { GhlClient } from './ghl.client.ts';

const payload = z.object({ address: z.string().min(1), channel: z.string().min(1), on: z.boolean() });

/**
 * GoHighLevel's DND channels an opt-out covers (third-party-facts: dndSettings Call|Email|SMS|WhatsApp|GMB|FB).
 * An SMS opt-out also stops calls to the number, as ours does; "all" is every channel.
 */
const GHL_DND_CHANNELS: Record<string, string[]> = {
  sms: ['SMS', 'Call'],
  call: ['Call', 'SMS'],
  whatsapp: ['WhatsApp'],
  instagram: ['FB'],
  messenger: ['FB'],
  all: ['SMS', 'Call', 'WhatsApp', 'FB', 'GMB', 'Email'],
};

/**
 * Writes an opt-out to the DND of every GoHighLevel contact this address was worked for (conversations that
 * carry a CRM contact id, on a CRM-linked type): `active` on STOP, `inactive` on START or a person's clear.
 * PUT /contacts/{id} is idempotent, so a retry repeats nothing harmful.
 */
export const crmDndJob: JobDefinition<typeof payload> = {
  name: CRM_DND_JOB,
  payload,
  async handler(ctx, { address, channel, on }) {
    // Phone addresses are E.164; a WhatsApp prospect's id is the same number without the plus.
    const ids = address.startsWith('+') ? [address, address.slice(1)] : [address.split(':').slice(2).join(':')];
    const rows = await ctx.db
      .selectDistinct({ contactId: conversations.crmContactId, config: conversationTypes.config })
      .from(conversations)
      .innerJoin(prospects, eq(prospects.id, conversations.prospectId))
      .innerJoin(conversationTypes, eq(conversationTypes.id, conversations.conversationTypeId))
      .where(and(inArray(prospects.externalId, ids), isNotNull(conversations.crmContactId)));
    const status = on ? 'active' : 'inactive';
    const dndSettings = Object.fromEntries((GHL_DND_CHANNELS[channel] ?? GHL_DND_CHANNELS.all).map((c) => [c, { status, message: on ? `Opted out (${channel})` : 'Subscribed again' }]));
    for (const row of rows) {
      let client: GhlClient;
      try {
        client = new GhlClient(ctx, credentialsOf(ctx, row.config));
      } catch (err) {
        if (err instanceof AppError && err.status === 400) continue; // the type is no longer CRM-linked
        throw err;
      }
      await client.updateContact(row.contactId!, { dndSettings });
    }
  },
};
