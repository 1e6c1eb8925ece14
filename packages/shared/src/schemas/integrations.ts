import { z } from 'zod';

/**
 * Integrations (issue 27, docs/api.md): API keys with scopes and outbound webhooks. Scope and event names are
 * part of the public contract: keep them as they are.
 */
export const API_KEY_SCOPES = ['conversations:read', 'conversations:write', 'calls:write', 'playbooks:write', 'analytics:read'] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

export const API_KEY_SCOPE_LABELS: Record<ApiKeyScope, string> = {
  'conversations:read': 'Read conversations and messages',
  'conversations:write': 'Start conversations and write messages',
  'calls:write': 'Place calls',
  'playbooks:write': 'Manage playbooks (conversation types, phases, knowledge)',
  'analytics:read': 'Read analytics and prices',
};

export const apiKeyCreateBody = z.object({
  name: z.string().trim().min(1).max(100),
  scopes: z.array(z.enum(API_KEY_SCOPES)).min(1).max(API_KEY_SCOPES.length),
});
export type ApiKeyCreateBody = z.infer<typeof apiKeyCreateBody>;

export const apiKeyView = z.object({
  id: z.number(),
  name: z.string(),
  /** The key's first characters; the key itself is shown only once, at creation. */
  prefix: z.string(),
  scopes: z.array(z.string()),
  createdBy: z.object({ id: z.number(), email: z.string() }).nullable(),
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
  revokedAt: z.string().nullable(),
});
export type ApiKeyView = z.infer<typeof apiKeyView>;

/** POST /api/admin/api-keys: the only answer that carries the key. */
export const apiKeyCreated = apiKeyView.extend({ key: z.string() });
export type ApiKeyCreated = z.infer<typeof apiKeyCreated>;

export const WEBHOOK_EVENTS = [
  'conversation.started',
  'message.created',
  'conversation.phase_changed',
  'conversation.needs_human',
  'conversation.ended',
  'lead.updated',
  /** The outcome analysis (issue 22) was written, after conversation.ended. */
  'conversation.analyzed',
  'meeting.booked',
  'call.started',
  'call.ended',
  'call.recording_ready',
  'campaign.contact_finished',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENTS)[number];
/** Sent by "Send test event" only; never subscribed to. */
export const WEBHOOK_TEST_EVENT = 'webhook.test';

export const webhookCreateBody = z.object({
  url: z.string().trim().min(1).max(2000).url(),
  events: z.array(z.enum(WEBHOOK_EVENTS)).min(1).max(WEBHOOK_EVENTS.length),
});
export type WebhookCreateBody = z.infer<typeof webhookCreateBody>;

export const webhookUpdateBody = z.object({
  url: z.string().trim().min(1).max(2000).url().optional(),
  events: z.array(z.enum(WEBHOOK_EVENTS)).min(1).max(WEBHOOK_EVENTS.length).optional(),
  enabled: z.boolean().optional(),
});
export type WebhookUpdateBody = z.infer<typeof webhookUpdateBody>;

export const webhookEndpointView = z.object({
  id: z.number(),
  url: z.string(),
  events: z.array(z.string()),
  enabled: z.boolean(),
  /** Why it is disabled (it kept failing), shown as a notice. */
  disabledReason: z.string().nullable(),
  consecutiveFailures: z.number(),
  createdAt: z.string(),
});
export type WebhookEndpointView = z.infer<typeof webhookEndpointView>;

/** POST /api/admin/webhooks: the only answer that carries the signing secret. */
export const webhookCreated = webhookEndpointView.extend({ secret: z.string() });
export type WebhookCreated = z.infer<typeof webhookCreated>;

export const webhookDeliveryView = z.object({
  id: z.number(),
  eventId: z.string(),
  type: z.string(),
  status: z.enum(['PENDING', 'DELIVERED', 'FAILED']),
  attempts: z.number(),
  responseCode: z.number().nullable(),
  responseMs: z.number().nullable(),
  lastError: z.string().nullable(),
  createdAt: z.string(),
  lastAttemptAt: z.string().nullable(),
  nextAttemptAt: z.string().nullable(),
});
export type WebhookDeliveryView = z.infer<typeof webhookDeliveryView>;

/**
 * POST /api/leads (API key with conversations:write): a lead from a form or a CRM starts a conversation type's
 * outbound message (SMS, or a WhatsApp template outside the 24 h window) or call, obeying opt-outs and quiet hours.
 */
export const leadBody = z.object({
  conversationTypeId: z.number().int().positive().max(2_147_483_647),
  /** E.164, e.g. +14155550123. */
  phone: z.string().trim().min(1).max(40),
  name: z.string().trim().max(200).optional(),
  /** Anything else the form collected: shown to the agent (and people) as the conversation's first note. */
  fields: z.record(z.string().max(100), z.union([z.string().max(2000), z.number(), z.boolean(), z.null()])).optional(),
  channel: z.enum(['message', 'call']).default('message'),
  /** The account to write from (SMS or WhatsApp); default: the type's account. */
  messagingAccountId: z.number().int().positive().max(2_147_483_647).optional(),
  /**
   * The person opted in to WhatsApp messages from you (your form's checkbox, an import): recorded as their
   * consent. A WhatsApp lead without it, or an opt-in recorded earlier, is refused (409 NO_WHATSAPP_OPT_IN).
   */
  whatsappOptIn: z.boolean().optional(),
  /** Where the opt-in was given, kept with the consent record (e.g. "website form, checkbox 2026-05-01"). */
  optInNote: z.string().trim().max(500).optional(),
});
export type LeadBody = z.input<typeof leadBody>;

export const leadResult = z.object({ uuid: z.string(), channel: z.enum(['message', 'call']) });
export type LeadResult = z.infer<typeof leadResult>;
