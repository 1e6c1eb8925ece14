import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorBody, messageBody } from '@sales-agent/shared/schemas/common';
import {
  conversationDetail,
  conversationIdParams,
  conversationListQuery,
  conversationListResponse,
  conversationMessageParams,
  conversationNote,
  noteBody,
  notificationList,
  conversationUuidParams,
  deleteMessagesBody,
  editMessageBody,
  handBackBody,
  handOffResponse,
  markReadBody,
  markReadResponse,
  newConversationBody,
  patchConversationBody,
  prospectConversation,
  prospectConversationQuery,
  uuidResponse,
  writtenMessageBody,
} from '@sales-agent/shared/schemas/conversation';
import type { AppContext } from '../../context.ts';
import { AppError } from '../../lib/errors.ts';
import { requireUser } from '../../plugins/auth.ts';
import { loadConversationToChange, loadConversationToView } from './conversation-policy.ts';
import { acquireStreamSlot, closeStreamsOnShutdown, streamConversationEvents, streamListEvents } from './conversation-events.ts';
import { ConversationAccounts, inboxViewer } from './inbox-access.ts';
import { chatRateLimit, countConversationMessage } from '../../plugins/abuse-limits.ts';
import {
  changeConversationType,
  changePhase,
  createWebConversation,
  deleteConversation,
  deleteMessages,
  editMessage,
  findProspectConversation,
  handBack,
  listConversations,
  readConversationDetail,
  takeOver,
  requestFollowUp,
  writeMessage,
} from './conversations.service.ts';
import { markConversationRead } from './conversation-reads.ts';
import { addNote, changeWorkspace, listAssignees, listNotifications, markNotificationsRead } from './workspace.service.ts';

const tags = ['conversations'];
const errors = { 400: errorBody, 401: errorBody, 403: errorBody, 404: errorBody };

/** Spec §7.6 conversation calls (rebuild lives with the agent) and the live event stream. */
export async function conversationsRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  // Chats drive LLM cost: new chats and messages are limited per user (or address when anonymous).
  const chatLimit = chatRateLimit(ctx);
  const openStreams = new Set<() => void>();
  const conversationAccounts = new ConversationAccounts(ctx);
  closeStreamsOnShutdown(app, openStreams);

  r.get(
    '/api/conversation/list',
    { schema: { tags, querystring: conversationListQuery, response: { 200: conversationListResponse, ...errors } } },
    async (request) => listConversations(ctx, requireUser(request), request.query),
  );

  // The inbox's live list (issue 12); registered before /:uuid/events (a static segment wins anyway).
  r.get('/api/conversation/list/events', { schema: { tags, response: errors } }, async (request, reply) => {
    const actor = requireUser(request);
    const release = await acquireStreamSlot(ctx, request, 'inbox');
    if (!release) {
      throw new AppError(429, 'TOO_MANY_STREAMS', 'Too many live connections from this client. Close some tabs and try again.');
    }
    // Access per event from the stream's cached grant set, not a query per event (issue 18).
    streamListEvents(ctx, request, reply, inboxViewer(ctx, actor, conversationAccounts), openStreams, release);
  });

  r.post(
    '/api/conversation/new',
    {
      config: chatLimit,
      schema: { tags, body: newConversationBody, response: { 201: uuidResponse, ...errors } },
    },
    async (request, reply) =>
      reply.status(201).send(await createWebConversation(ctx, request.body.conversationTypeId, { publicOnly: request.actor?.role !== 'ADMIN' })),
  );

  r.get(
    '/api/conversation/:uuid',
    { schema: { tags, params: conversationUuidParams, response: { 200: conversationDetail, ...errors } } },
    async (request) => readConversationDetail(ctx, request.actor, request.params.uuid),
  );

  // The signed-in user's own read mark (issue 12 inbox, docs/conversations.md): every conversation they may view.
  r.put(
    '/api/conversation/:uuid/read',
    {
      schema: {
        tags,
        summary: 'Mark a conversation read by the signed-in user',
        description:
          'Clears the unread mark of GET /api/conversation/list for this user only, on every device: up to lastMessageDate ' +
          '(the latest message the user has seen), or up to now without a body. Idempotent; the mark never moves backwards.',
        params: conversationUuidParams,
        body: markReadBody,
        response: { 200: markReadResponse, ...errors },
      },
    },
    async (request) => {
      const actor = requireUser(request);
      const conversation = await loadConversationToView(ctx, actor, request.params.uuid);
      return markConversationRead(ctx, actor, conversation, request.body?.lastMessageDate);
    },
  );

  r.get(
    '/api/conversation/:uuid/events',
    { schema: { tags, params: conversationUuidParams, response: errors } },
    async (request, reply) => {
      const conversation = await loadConversationToView(ctx, request.actor, request.params.uuid);
      const release = await acquireStreamSlot(ctx, request, conversation.uuid);
      if (!release) {
        throw new AppError(429, 'TOO_MANY_STREAMS', 'Too many live connections from this client. Close some tabs and try again.');
      }
      streamConversationEvents(ctx, request, reply, conversation, openStreams, release);
    },
  );

  r.patch(
    '/api/conversation/:id',
    { schema: { tags, params: conversationIdParams, body: patchConversationBody, response: { 200: messageBody, ...errors } } },
    async (request) => {
      const conversation = await loadConversationToChange(ctx, request.actor, { id: request.params.id });
      if (!('phase' in request.body) && !('conversationType' in request.body)) {
        return { message: await changeWorkspace(ctx, requireUser(request), conversation, request.body) };
      }
      if ('phase' in request.body) {
        await changePhase(ctx, conversation, request.body.phase);
        return { message: 'Phase updated' };
      }
      await changeConversationType(ctx, conversation, request.body.conversationType);
      return { message: 'Conversation type updated' };
    },
  );

  // Hand-off (issue 12): authorised as every conversation change (ADMIN, or a NORMAL user granted the account).
  // Private notes of the team (issue 24): never messages, never sent, never shown to a visitor.
  r.post(
    '/api/conversation/:id/notes',
    { schema: { tags, params: conversationIdParams, body: noteBody, response: { 201: conversationNote, ...errors } } },
    async (request, reply) => {
      const conversation = await loadConversationToChange(ctx, request.actor, { id: request.params.id });
      return reply.status(201).send(await addNote(ctx, requireUser(request), conversation, request.body.text));
    },
  );

  r.get(
    '/api/conversation/:id/assignees',
    { schema: { tags, summary: 'Teammates this conversation may be assigned to', params: conversationIdParams, response: { 200: z.array(z.object({ email: z.string() })), ...errors } } },
    async (request) => listAssignees(ctx, await loadConversationToChange(ctx, request.actor, { id: request.params.id })),
  );

  r.get(
    '/api/notifications',
    { schema: { tags, response: { 200: notificationList, ...errors } } },
    async (request) => listNotifications(ctx, requireUser(request)),
  );

  r.post('/api/notifications/read', { schema: { tags, response: { 200: messageBody, ...errors } } }, async (request) => {
    await markNotificationsRead(ctx, requireUser(request));
    return { message: 'Notifications read' };
  });

  r.post(
    '/api/conversation/:id/take-over',
    { schema: { tags, params: conversationIdParams, response: { 200: handOffResponse, 409: errorBody, ...errors } } },
    async (request) => takeOver(ctx, await loadConversationToChange(ctx, request.actor, { id: request.params.id })),
  );

  r.post(
    '/api/conversation/:id/hand-back',
    { schema: { tags, params: conversationIdParams, body: handBackBody, response: { 200: handOffResponse, 409: errorBody, ...errors } } },
    async (request) =>
      handBack(ctx, await loadConversationToChange(ctx, request.actor, { id: request.params.id }), request.body.phase),
  );

  r.delete(
    '/api/conversation/:id',
    { schema: { tags, params: conversationIdParams, response: { 200: messageBody, ...errors } } },
    async (request) => {
      await deleteConversation(ctx, await loadConversationToChange(ctx, request.actor, { id: request.params.id }));
      return { message: 'Conversation deleted' };
    },
  );

  r.delete(
    '/api/conversation/:id/messages',
    {
      schema: {
        tags,
        params: conversationIdParams,
        body: deleteMessagesBody,
        response: { 200: z.object({ message: z.string(), deleted: z.number() }), ...errors },
      },
    },
    async (request) => {
      const conversation = await loadConversationToChange(ctx, request.actor, { id: request.params.id });
      const deleted = await deleteMessages(ctx, conversation, request.body.messageIds);
      return { message: 'Messages deleted', deleted };
    },
  );

  r.patch(
    '/api/conversation/:id/message/:messageId',
    { schema: { tags, params: conversationMessageParams, body: editMessageBody, response: { 200: messageBody, ...errors } } },
    async (request) => {
      const conversation = await loadConversationToChange(ctx, request.actor, { id: request.params.id });
      await editMessage(ctx, conversation, request.params.messageId, request.body.message);
      return { message: 'Message updated successfully' };
    },
  );

  r.post(
    '/api/conversation/:uuid/written-message',
    {
      config: chatLimit,
      schema: { tags, params: conversationUuidParams, body: writtenMessageBody, response: { 200: messageBody, 409: errorBody, ...errors } },
    },
    async (request) => {
      const conversation = await loadConversationToView(ctx, request.actor, request.params.uuid);
      await countConversationMessage(ctx, conversation.uuid);
      await writeMessage(ctx, request.actor, conversation, request.body.message);
      return { message: 'Message sent' };
    },
  );

  // ADMIN only (plugins/auth.ts guards /api/admin/**): the webhook simulator's link to what it started.
  r.get(
    '/api/admin/conversation/by-prospect',
    { schema: { tags, querystring: prospectConversationQuery, response: { 200: prospectConversation, ...errors } } },
    async (request) => findProspectConversation(ctx, request.query.messagingAccountId, request.query.externalId),
  );

  r.post(
    '/api/conversation/:uuid/follow-up',
    { schema: { tags, params: conversationUuidParams, response: { 200: messageBody, ...errors } } },
    async (request) => requestFollowUp(ctx, await loadConversationToChange(ctx, request.actor, { uuid: request.params.uuid })),
  );
}
