import { conversationActions } from './agent-actions.ts';
import { consentStateView, doNotContactView } from './compliance.ts';
import { z } from 'zod';
import { ACCOUNT_TYPES, CONVERSATION_ORDERS, MESSAGE_ROLES } from '../enums.ts';
import { LIMITS } from '../limits.ts';
import { idParam, INT4_MAX, isStorableInstant } from './common.ts';

/** An empty query-string value ("?minRating=") means "no filter", not 0. */
const blankToUndefined = (v: unknown) => (v === '' || v === null ? undefined : v);
// Filters compare with 32-bit integer columns: values beyond them would be refused by the database.
const optionalInt = z.preprocess(blankToUndefined, z.coerce.number().int().min(-INT4_MAX).max(INT4_MAX).optional());
const optionalNumber = z.preprocess(blankToUndefined, z.coerce.number().finite().min(0).max(INT4_MAX).optional());
/** A whole uuid or the start of one (hex digits and dashes only, so it is safe in a LIKE prefix). */
const uuidPrefix = z.preprocess(
  (v) => (typeof v === 'string' ? v.trim().toLowerCase() || undefined : v),
  z
    .string()
    .max(36)
    .regex(/^[0-9a-f-]+$/, 'must be a uuid or the start of one (0-9, a-f, -)')
    .optional(),
);

export const HAS_RECORDING_VALUES = ['true', 'false', 'all'] as const;
/** Conversation state (issue 24): a person resolves it; it reopens when the prospect writes again. */
export const CONVERSATION_STATES = ['open', 'resolved'] as const;
export type ConversationState = (typeof CONVERSATION_STATES)[number];
export const CONVERSATION_STATE_FILTERS = ['open', 'snoozed', 'resolved', 'all'] as const;
/** The list's channel filter: the account types and WEB (web chats). */
export const CONVERSATION_CHANNELS = [...ACCOUNT_TYPES, 'WEB'] as const;

export const messageAuthor = z.object({ kind: z.enum(['ai', 'person', 'prospect']), email: z.string().optional() });
export type MessageAuthor = z.infer<typeof messageAuthor>;

/** Query of GET /api/conversation/list (spec §2.2, §9). Every field is optional. */
export const conversationListQuery = z.object({
  page: z.preprocess(blankToUndefined, z.coerce.number().int().min(1).max(1_000_000).default(1)),
  limit: z.preprocess(
    blankToUndefined,
    z.coerce
      .number()
      .int()
      .refine((n) => (LIMITS.conversationPageSizes as readonly number[]).includes(n), 'must be 10, 50 or 100')
      .default(LIMITS.conversationPageSizes[0]),
  ),
  uuid: uuidPrefix,
  prospectUuid: uuidPrefix,
  phase: optionalInt,
  /** A conversation type id. */
  conversationType: z.preprocess(blankToUndefined, idParam.optional()),
  minRating: optionalNumber,
  maxRating: optionalNumber,
  /** Seconds. */
  minRecordingDuration: optionalNumber,
  maxRecordingDuration: optionalNumber,
  hasRecording: z.preprocess(blankToUndefined, z.enum(HAS_RECORDING_VALUES).default('all')),
  orderBy: z.preprocess(blankToUndefined, z.enum(CONVERSATION_ORDERS).default('latestMessageDate')),
  // The team's workspace (issue 24, docs/workspace.md).
  /** Search text: prospect name, phone number, handle, email and message text (full-text words). */
  q: z.preprocess(
    (v) => (typeof v === 'string' ? v.trim() || undefined : v),
    z.string().max(200, 'Search text is too long (200 characters at most)').optional(),
  ),
  /** `me`, `none` (unassigned) or a teammate's email. */
  assignee: z.preprocess(
    (v) => (typeof v === 'string' ? v.trim().toLowerCase() || undefined : v),
    z.union([z.enum(['me', 'none']), z.email('assignee must be me, none or an email')]).optional(),
  ),
  /** open (not snoozed), snoozed, resolved or all (default). */
  state: z.preprocess(blankToUndefined, z.enum(CONVERSATION_STATE_FILTERS).optional()),
  /** The channel: an account type, or WEB for web chats. */
  channel: z.preprocess(blankToUndefined, z.enum(CONVERSATION_CHANNELS).optional()),
  /** A messaging account id. */
  messagingAccount: z.preprocess(blankToUndefined, idParam.optional()),
  /** true: only conversations that need a person (phase -2/-1 or follow-up errors), open and not being handled. */
  needsPerson: z.preprocess(blankToUndefined, z.enum(['true', 'false']).optional()),
  /** Issue 22: only conversations whose outcome analysis has this outcome (e.g. booked). */
  outcome: z.preprocess(
    (v) => (typeof v === 'string' ? v.trim() || undefined : v),
    z.string().max(60, 'outcome is too long (60 characters at most)').optional(),
  ),
});
export type ConversationListQuery = z.infer<typeof conversationListQuery>;

/** The prospect as the list and the detail show it: who, their phone, and the account (channel) they write on. */
export const prospectSummary = z.object({
  uuid: z.string(),
  /** The name the channel gives the prospect (WhatsApp profile name, Instagram username …); null when none. */
  name: z.string().nullable(),
  /** The phone number on SMS, WhatsApp and calls (issue 24); null elsewhere. */
  phone: z.string().nullable().optional(),
  /** `type` is the channel (issue #8): INSTAGRAM, FACEBOOK (Messenger), WHATSAPP, TWILIO, SMS_GATEWAY. */
  messagingAccount: z.object({ id: z.number(), pageName: z.string(), type: z.enum(ACCOUNT_TYPES) }),
});

export const conversationListItem = z.object({
  id: z.number(),
  uuid: z.string(),
  phase: z.number(),
  conversationTypeId: z.number().nullable(),
  ConversationType: z.object({ id: z.number(), title: z.string().nullable() }).nullable(),
  rating: z.number().nullable(),
  /** The outcome of the conversation's outcome analysis (issue 22), null until it ended and was analysed. */
  outcome: z.string().nullable(),
  recordingDuration: z.number().nullable(),
  recordingUrl: z.string().nullable(),
  messagesCount: z.number(),
  lastMessageDate: z.string().nullable(),
  prospectId: z.number().nullable(),
  Prospect: prospectSummary.nullable(),
  // Inbox fields (issue 12), additive: what a row and the prospect panel show without opening the conversation.
  /** N, the number of phases of the type: phase N means "ended" (spec §4). */
  phaseCount: z.number(),
  /** The latest message: its role, its first 160 characters and when it was sent; null when none. */
  lastMessage: z
    .object({
      role: z.enum(MESSAGE_ROLES),
      preview: z.string(),
      dateSent: z.string(),
      /** Who wrote it (issue 24): the list's preview names the real author. */
      author: messageAuthor.optional(),
    })
    .nullable(),
  /** A person took over (a human message or Take over): the AI stays silent until handed back. */
  aiPaused: z.boolean(),
  /** Phase -2 or -1, or the unanswered entry recorded errors: a person should look at it. */
  needsHuman: z.boolean(),
  /** The unanswered entry (spec §2.9) when the conversation waits on the prospect: status and follow-ups sent. */
  followUp: z.object({ status: z.enum(['ACTIVE', 'INACTIVE']), followUpCount: z.number(), hasErrors: z.boolean() }).nullable(),
  /** Total cost in USD (LLM tokens and, for calls, telephony and speech). */
  costUsd: z.number(),
  /**
   * For the signed-in user (each team member has their own, the same on every device): the latest message is
   * the prospect's (or the visitor's) and came after this user last read the conversation, or they never did.
   * PUT /api/conversation/{uuid}/read clears it.
   */
  unread: z.boolean(),
  /** The prospect opted out (issue 23): the inbox marks them; the detail says when and how. */
  doNotContact: z.boolean().optional(),
  /** The assignee's email, null when unassigned (issue 24). */
  assignee: z.string().nullable(),
  state: z.enum(CONVERSATION_STATES),
  snoozedUntil: z.string().nullable(),
});
export type ConversationListItem = z.infer<typeof conversationListItem>;

export const conversationListResponse = z.object({
  conversations: z.array(conversationListItem),
  totalPages: z.number(),
  /**
   * True when there are more matching conversations than were counted (the count stops at a cap so the
   * list stays fast on millions of rows); totalPages is then a lower bound.
   */
  totalPagesIsLowerBound: z.boolean(),
});
export type ConversationListResponse = z.infer<typeof conversationListResponse>;

export const newConversationBody = z.object({ conversationTypeId: idParam });
export const uuidResponse = z.object({ uuid: z.string() });

export const conversationUuidParams = z.object({ uuid: z.uuid('must be a uuid') });

/**
 * PUT /api/conversation/{uuid}/read (issue 12): marks the conversation read by the signed-in user up to
 * `lastMessageDate` (the latest message the user has seen), or up to now without a body. Never moves back.
 */
export const markReadBody = z
  .object({
    lastMessageDate: z.iso
      .datetime({ offset: true, error: 'lastMessageDate must be an ISO 8601 date-time, e.g. 2030-12-31T10:00:00.000Z' })
      .refine(isStorableInstant, 'lastMessageDate must be in year 1 or later')
      .optional(),
  })
  .strict()
  // No body at all reaches the validator as null (Fastify): the same as {}.
  .nullish();
export type MarkReadBody = z.infer<typeof markReadBody>;
/** The user's read mark after the call: the later of the one stored and the one asked for. */
export const markReadResponse = z.object({ lastReadAt: z.string() });
export type MarkReadResponse = z.infer<typeof markReadResponse>;


/** A private note of the team (issue 24): never a message, never sent. */
export const conversationNote = z.object({
  id: z.number(),
  text: z.string(),
  authorEmail: z.string().nullable(),
  createdAt: z.string(),
});
export type ConversationNote = z.infer<typeof conversationNote>;
export const noteBody = z.object({ text: z.string().trim().min(1, 'Note must not be empty').max(10_000, 'Note is too long') });

/** The person behind a prospect conversation, across channels (issue 24). */
export const contactView = z.object({
  id: z.number(),
  name: z.string().nullable(),
  phone: z.string().optional(),
  email: z.string().optional(),
  /** The person's handles: one per channel account they wrote from. */
  handles: z.array(z.object({ channel: z.enum(ACCOUNT_TYPES), accountName: z.string(), externalId: z.string(), name: z.string().nullable() })),
  /** Their conversations the viewer may see, newest first. */
  conversations: z.array(
    z.object({
      uuid: z.string(),
      id: z.number(),
      /** null: a web chat (the visitor typed an email or phone number that became this contact's). */
      channel: z.enum(ACCOUNT_TYPES).nullable(),
      phase: z.number(),
      phaseCount: z.number(),
      state: z.enum(CONVERSATION_STATES),
      lastMessageDate: z.string().nullable(),
    }),
  ),
});
export type ContactView = z.infer<typeof contactView>;

export const DELIVERY_STATES = ['pending', 'sent', 'delivered', 'read', 'failed'] as const;
export const messageDelivery = z.object({ state: z.enum(DELIVERY_STATES), error: z.string().optional() });
export type MessageDelivery = z.infer<typeof messageDelivery>;

export const messageView = z.object({
  id: z.number(),
  role: z.enum(MESSAGE_ROLES),
  message: z.string(),
  dateSent: z.string(),
  /** The prospect edited it on their channel (Instagram/Messenger): the text before the latest edit, and when. */
  previousMessage: z.string().nullable().optional(),
  editedAt: z.string().nullable().optional(),
  /** The prospect deleted it on their channel: kept, shown as deleted. */
  deletedAt: z.string().nullable().optional(),
  /** A voice note or picture we stored: GET /api/conversation/{uuid}/messages/{id}/media serves it. */
  hasMedia: z.boolean().optional(),
  mediaType: z.string().nullable().optional(),
  /** Who wrote it (issue 24): the AI, a teammate (their email when known) or the prospect/visitor. */
  author: messageAuthor,
  /** A reply to a prospect on a channel (issue 24): what the channel reported; absent when it was not sent. */
  delivery: messageDelivery.optional(),
});
export type MessageView = z.infer<typeof messageView>;

export const conversationDetail = z.object({
  id: z.number(),
  uuid: z.string(),
  phase: z.number(),
  rating: z.number().nullable(),
  recordingDuration: z.number().nullable(),
  recordingUrl: z.string().nullable(),
  conversationTypeId: z.number().nullable(),
  /** The published playbook version the conversation started on (issue 25, docs/playbook-versions.md); null: the draft. */
  typeVersion: z.number().nullable().optional(),
  /** Phase prompts are present only for viewers who may administer the conversation. */
  ConversationType: z
    .object({
      id: z.number(),
      title: z.string().nullable(),
      initialMessage: z.string().nullable(),
      conversation_phases: z.array(z.object({ index: z.number(), prompt: z.string() })),
    })
    .nullable(),
  /** N, the number of phases of the type: phase N means "ended" (spec §4). */
  phaseCount: z.number(),
  prospectId: z.number().nullable(),
  Prospect: prospectSummary.nullable(),
  messages: z.array(messageView),
  /** The viewer may change the phase/type, edit and delete messages, ask for a follow-up (spec §6). */
  canAdminister: z.boolean(),
  /** Set after a human wrote on a prospect conversation: the AI waits until the phase is set again. */
  aiPaused: z.boolean(),
  /** No LLM is configured: the offline demo agent answers (DESIGN.md §6). */
  isDemoAgent: z.boolean(),
  /** The playbook has ended (phase N) or the conversation is ignored (9999): a web chat takes no more messages. */
  ended: z.boolean(),
  ...conversationActions,
  /** Active opt-outs of the prospect (issue 23); null for a web chat or a prospect who may be contacted. */
  doNotContact: doNotContactView.optional(),
  /**
   * The prospect's WhatsApp opt-in (issue 23): for a prospect with a phone number and a viewer who may change the
   * conversation; null when none was recorded, absent otherwise.
   */
  whatsappOptIn: consentStateView.optional(),
  // The team's workspace (issue 24): only for viewers who may administer the conversation (never a visitor).
  assignee: z.string().nullable(),
  state: z.enum(CONVERSATION_STATES),
  snoozedUntil: z.string().nullable(),
  notes: z.array(conversationNote),
  /** The person, for a prospect conversation; null for a web chat or a visitor. */
  contact: contactView.nullable(),
});
export type ConversationDetail = z.infer<typeof conversationDetail>;

export const conversationIdParams = z.object({ id: idParam });

/**
 * GET /api/admin/conversation/by-prospect (beyond the spec): the latest conversation of the prospect that
 * `externalId` (Instagram/Messenger scoped id, WhatsApp wa_id, phone number) is on a messaging account. The
 * webhook simulator uses it to link to the conversation its message started.
 */
export const prospectConversationQuery = z.object({
  messagingAccountId: idParam,
  externalId: z.string().trim().min(1, 'externalId is required').max(200, 'externalId is too long'),
});
export const prospectConversation = z.object({ id: z.number(), uuid: z.string() });
export type ProspectConversation = z.infer<typeof prospectConversation>;
export const conversationMessageParams = z.object({
  id: idParam,
  messageId: z.coerce.number().int().positive(),
});

/** PATCH /api/conversation/{id}: either a phase code or another conversation type (spec §7.6). */
export const patchConversationBody = z.union([
  z.object({ phase: z.number().int() }).strict(),
  z.object({ conversationType: z.number().int().positive().max(INT4_MAX, 'no such id') }).strict(),
  // The team's workspace (issue 24): any of these together.
  z
    .object({
      assigneeEmail: z.string().trim().toLowerCase().email('assigneeEmail must be an email or null').nullable().optional(),
      state: z.enum(CONVERSATION_STATES).optional(),
      snoozedUntil: z.iso
        .datetime({ offset: true, error: 'snoozedUntil must be an ISO 8601 date-time, e.g. 2030-12-31T10:00:00.000Z' })
        .refine(isStorableInstant, 'snoozedUntil must be in year 1 or later')
        .nullable()
        .optional(),
    })
    .strict()
    .refine((b) => Object.keys(b).length > 0, 'Give phase, conversationType, assigneeEmail, state or snoozedUntil'),
]);
export type PatchConversationBody = z.infer<typeof patchConversationBody>;

/**
 * POST /api/conversation/{id}/hand-back (issue 12): the AI resumes at `phase`, a working phase 0..N-1;
 * absent, the phase it was in (or 0).
 */
export const handBackBody = z
  .object({ phase: z.number({ error: 'phase must be a number' }).int('phase must be a whole number').min(0, 'phase must be a working phase (0 or more)').optional() })
  .strict();
export const handOffResponse = z.object({ message: z.string(), phase: z.number(), aiPaused: z.boolean() });

/** Trimmed text must be non-empty (spec §5). */
export const messageText = z.string().trim().min(1, 'Message must not be empty').max(10_000, 'Message is too long');
export const writtenMessageBody = z.object({ message: messageText });
export const editMessageBody = z.object({ message: messageText });
export const deleteMessagesBody = z.object({
  messageIds: z.array(z.number().int().positive()).min(1, 'Choose at least one message').max(10_000),
});

/** GET /api/notifications (issue 24): the signed-in user's latest notifications and how many are unread. */
export const notificationView = z.object({
  id: z.number(),
  kind: z.enum(['assigned', 'mentioned']),
  byEmail: z.string().nullable(),
  text: z.string().nullable(),
  conversationUuid: z.string(),
  createdAt: z.string(),
  read: z.boolean(),
});
export type NotificationView = z.infer<typeof notificationView>;
export const notificationList = z.object({ unread: z.number(), notifications: z.array(notificationView) });
export type NotificationList = z.infer<typeof notificationList>;
