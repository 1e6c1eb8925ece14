import { reportLeadFieldsChanged } from '../../conversations/conversation-outcome.ts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { errorBody } from '@sales-agent/shared/schemas/common';
import { conversationIdParams } from '@sales-agent/shared/schemas/conversation';
import { readConversationTypeConfig } from '@sales-agent/shared/schemas/conversation-type-config';
import { leadFieldsBody, leadFieldsView } from '@sales-agent/shared/schemas/lead-fields';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { emitConversationChanged } from '../../conversations/conversation-store.ts';
import { readLeadFields, writeLeadFields } from '../../conversations/lead-fields.ts';
import { typeConfigText } from '../../conversations/type-config.ts';
import { badRequest } from '../../lib/errors.ts';
import { loadConversationToChange } from '../conversations/conversation-policy.ts';

const tags = ['conversations'];
const errors = { 400: errorBody, 401: errorBody, 403: errorBody, 404: errorBody };

/**
 * A person corrects the lead fields the agent recorded (issue 22): authorised as every conversation change
 * (ADMIN, or a NORMAL user granted the account). All or nothing: one invalid value refuses the whole write.
 */
export async function leadFieldsRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.put(
    '/api/conversation/:id/lead-fields',
    { schema: { tags, params: conversationIdParams, body: leadFieldsBody, response: { 200: z.object({ message: z.string(), leadFields: leadFieldsView }), ...errors } } },
    async (request) => {
      const conversation = await loadConversationToChange(ctx, request.actor, { id: request.params.id });
      const definitions = readConversationTypeConfig(await typeConfigText(ctx.db, conversation.conversationTypeId)).leadFields ?? [];
      const leadFields = await ctx.db.transaction(async (tx) => {
        const written = await writeLeadFields(tx, conversation.id, definitions, request.body.fields, { source: 'person', userId: request.actor!.id });
        const [key, why] = Object.entries(written.rejected)[0] ?? [];
        if (key) throw badRequest(`${key} ${why}`, 'VALIDATION_ERROR');
        await reportLeadFieldsChanged(ctx, conversation.id, tx);
        return readLeadFields(tx, conversation.id);
      });
      emitConversationChanged(ctx, conversation);
      return { message: 'Lead fields saved', leadFields };
    },
  );
}
