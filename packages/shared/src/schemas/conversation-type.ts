import { z } from 'zod';
import { idParam, INT4_MAX } from './common.ts';

/** Longest prompt we accept; real playbooks are a few thousand characters. */
export const PROMPT_MAX = 50_000;
/** Longest config JSON text we accept. */
export const CONFIG_TEXT_MAX = 100_000;
/** Phase indexes are 0..N-1; codes 9999 and negatives are reserved (spec §4), so keep far below. */
export const PHASE_INDEX_MAX = 999;

/** A required prompt: any text with at least one non-blank character. */
const requiredText = (label: string, max = PROMPT_MAX) =>
  z
    .string({ error: `${label} is required` })
    .max(max, `${label} is too long (at most ${max} characters)`)
    .refine((v) => v.trim().length > 0, `${label} is required`);

/** An optional text: absent, null or blank all mean "none" and are stored as null. */
const optionalText = (label: string, max = PROMPT_MAX) =>
  z
    .string({ error: `${label} must be text` })
    .max(max, `${label} is too long (at most ${max} characters)`)
    .nullish()
    .transform((v) => (v && v.trim() ? v : null));

const positiveId = (label: string) =>
  z.number({ error: `${label} must be a number` }).int().positive().max(INT4_MAX, `${label}: no such id`);

/** POST /api/admin/conversation-type/create-edit (spec §7.3): id present → edit, absent → create. */
export const conversationTypeSaveBody = z.object({
  id: positiveId('id').nullish(),
  /** Shown in lists instead of the role prompt when set. */
  title: optionalText('Title', 500),
  /** Who the agent is, what it sells, its tone: the system prompt of every turn (DESIGN.md §6). */
  rolePrompt: requiredText('Role prompt'),
  /** Decides whether the agent engages a new inbound conversation at all. */
  triggerConversationPrompt: optionalText('Trigger conversation prompt'),
  /** A guard every drafted reply must pass before it is sent. */
  checkingPrompt: optionalText('Checking prompt'),
  /** How the agent answers when something fails. */
  errorPrompt: requiredText('Error prompt'),
  /** The agent's first message of a new web, outbound or call conversation. */
  initialMessage: optionalText('Initial message', 5_000),
  /** The account used for outbound calls and messages of this type; null for none. */
  messagingAccountId: positiveId('messagingAccountId').nullish(),
  /** Config JSON text (validated like the config route); kept unchanged on edit when absent. */
  config: z.string().max(CONFIG_TEXT_MAX, 'Configuration is too long').optional(),
  /**
   * Listed on the public start page and startable by visitors and NORMAL users (issue 12). Absent: true for
   * a new type, unchanged on edit.
   */
  isPublic: z.boolean({ error: 'isPublic must be true or false' }).optional(),
  /**
   * The chat's name as visitors and prospects see it (issue 24): stored as the config's `publicTitle`. Absent:
   * unchanged; null or empty: none (they see "Chat").
   */
  publicTitle: z
    .string({ error: 'Public title must be text' })
    .trim()
    .max(80, 'Public title must be at most 80 characters')
    .nullish()
    .transform((v) => (v === undefined ? undefined : v || null)),
  /** Knowledge collections the agent answers from (issue 21); absent: unchanged on edit, none on create. */
  knowledgeCollectionIds: z.array(positiveId('knowledgeCollectionIds[]')).max(50).optional(),
});
export type ConversationTypeSaveBody = z.input<typeof conversationTypeSaveBody>;

/** POST /api/admin/conversation-phase/create-edit (spec §7.3). */
export const conversationPhaseSaveBody = z.object({
  id: positiveId('id').nullish(),
  /** 0..N-1: the order of the phase within its type. */
  index: z
    .number({ error: 'Index must be a number' })
    .int('Index must be a whole number')
    .min(0, 'Index must be 0 or more')
    .max(PHASE_INDEX_MAX, `Index must be at most ${PHASE_INDEX_MAX}`),
  /** The goal of this phase. */
  prompt: requiredText('Prompt'),
  /** The condition for moving on to the next phase. */
  transitionPrompt: requiredText('Transition prompt'),
  /** Writes a nudge when the prospect goes quiet in this phase. */
  followUpPrompt: optionalText('Follow-up prompt'),
  conversationType: z.object({ id: positiveId('conversationType.id') }, { error: 'conversationType is required' }),
});
export type ConversationPhaseSaveBody = z.input<typeof conversationPhaseSaveBody>;

export const conversationPhase = z.object({
  id: z.number(),
  index: z.number(),
  prompt: z.string(),
  transitionPrompt: z.string(),
  followUpPrompt: z.string().nullable(),
  conversationTypeId: z.number(),
  conversationType: z.object({ id: z.number() }),
});
export type ConversationPhase = z.infer<typeof conversationPhase>;

/** The fields only an ADMIN sees (prompts, config, account). */
const adminTypeFields = z.object({
  rolePrompt: z.string(),
  triggerConversationPrompt: z.string().nullable(),
  checkingPrompt: z.string().nullable(),
  errorPrompt: z.string(),
  config: z.string(),
  messagingAccountId: z.number().nullable(),
  conversation_phases: z.array(conversationPhase),
  /** Shown on the public start page (issue 12); only an ADMIN sees the flag (others only get public types). */
  isPublic: z.boolean(),
  /** The config's `publicTitle` (issue 24): what visitors see instead of the title; null when unset. */
  publicTitle: z.string().nullable(),
});

/** What everyone may see of a type: prompts never leave the server for non-admins. */
const publicTypeFields = z.object({
  id: z.number(),
  title: z.string().nullable(),
  /** The title, or for an ADMIN the role prompt when there is no title (the web truncates it). */
  label: z.string(),
  initialMessage: z.string().nullable(),
});

/**
 * An item of GET /api/conversation-type/listt. Everyone gets id, title, label and initialMessage;
 * an ADMIN also gets every field, the config and the phases (sorted by index).
 */
export const conversationTypeListItem = publicTypeFields.extend(adminTypeFields.partial().shape);
export type ConversationTypeListItem = z.infer<typeof conversationTypeListItem>;
export const conversationTypeList = z.array(conversationTypeListItem);

/** GET /api/conversation-type/{id} (ADMIN). */
export const conversationTypeDetail = publicTypeFields.extend(adminTypeFields.shape).extend({
  messagingAccount: z
    .object({ id: z.number(), type: z.string(), pageName: z.string(), pageId: z.string() })
    .nullable(),
  /** Issue 21: the knowledge collections attached to this type. */
  knowledgeCollectionIds: z.array(z.number()),
});
export type ConversationTypeDetail = z.infer<typeof conversationTypeDetail>;

export const conversationTypeSaved = z.object({ conversationType: z.object({ id: z.number() }) });
export const conversationPhaseSaved = z.object({ conversationPhase: conversationPhase });
export const conversationPhaseList = z.array(conversationPhase);
export const typeIdParams = z.object({ typeId: idParam });
