import { asc, eq, inArray } from 'drizzle-orm';
import type { conversationTypeSaveBody } from '@sales-agent/shared/schemas/conversation-type';
import { customToolSecretPaths } from '@sales-agent/shared/schemas/custom-tools';
import {
  conversationTypeConfig,
  conversationTypeConfigObject,
  readConversationTypeConfig,
  withPublicTitle,
} from '@sales-agent/shared/schemas/conversation-type-config';
import type { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { conversationPhases, conversationTypes, messagingAccounts } from '../../db/schema/index.ts';
import { badRequest, notFound } from '../../lib/errors.ts';
import { jsonSchemaProblem } from '../../lib/json-schema.ts';
import { outboundUrlProblem } from '../../lib/outbound-url.ts';
import { exampleUrl } from '../../lib/url-template.ts';
import { maskConfigSecrets, sealConfigSecrets } from '../crm/crm-config.ts';
import { typeConfigText } from '../../conversations/type-config.ts';
import {
  presentAdminType,
  presentPublicType,
  presentTypeAccount,
} from './conversation-types.presenter.ts';

type SaveInput = z.output<typeof conversationTypeSaveBody>;

export const typeNotFound = () => notFound('Conversation type not found', 'CONVERSATION_TYPE_NOT_FOUND');

/**
 * 404 CONVERSATION_TYPE_NOT_FOUND unless the type exists; with `publicOnly`, a private type is missing too
 * (a visitor or NORMAL user may only start public types, issue 12; 404 so private ids cannot be probed).
 */
export async function assertTypeExists(ctx: AppContext, typeId: number, options: { publicOnly?: boolean } = {}): Promise<void> {
  const [type] = await ctx.db
    .select({ id: conversationTypes.id, isPublic: conversationTypes.isPublic })
    .from(conversationTypes)
    .where(eq(conversationTypes.id, typeId))
    .limit(1);
  if (!type || (options.publicOnly && !type.isPublic)) throw typeNotFound();
}

/**
 * Lists every type, oldest first. Only an ADMIN gets prompts, config and phases; everyone else gets what
 * the start-a-conversation screen needs.
 */
export async function listConversationTypes(ctx: AppContext, options: { admin: boolean; visitor: boolean }) {
  // Only an ADMIN sees private types (issue 12): the start page lists what visitors may start.
  const types = await ctx.db
    .select()
    .from(conversationTypes)
    .where(options.admin ? undefined : eq(conversationTypes.isPublic, true))
    .orderBy(asc(conversationTypes.id));
  if (!options.admin) return types.map((type) => presentPublicType(type, options));
  const phases = types.length
    ? await ctx.db
        .select()
        .from(conversationPhases)
        .where(inArray(conversationPhases.conversationTypeId, types.map((t) => t.id)))
    : [];
  return types.map((type) =>
    presentAdminType(withMaskedConfig(ctx, type), phases.filter((p) => p.conversationTypeId === type.id)),
  );
}

async function findType(ctx: AppContext, id: number) {
  const [type] = await ctx.db.select().from(conversationTypes).where(eq(conversationTypes.id, id)).limit(1);
  if (!type) throw typeNotFound();
  return type;
}

/** One type with its config, account and phases (ADMIN). */
export async function getConversationType(ctx: AppContext, id: number) {
  const type = await findType(ctx, id);
  const phases = await ctx.db.select().from(conversationPhases).where(eq(conversationPhases.conversationTypeId, id));
  const [account] = type.messagingAccountId
    ? await ctx.db.select().from(messagingAccounts).where(eq(messagingAccounts.id, type.messagingAccountId)).limit(1)
    : [];
  return { ...presentAdminType(withMaskedConfig(ctx, type), phases), messagingAccount: presentTypeAccount(account ?? null) };
}

/** Every answer shows the config with its CRM apiKey masked (docs/crm.md); the stored text keeps it sealed. */
function withMaskedConfig<T extends { config: string }>(ctx: AppContext, type: T): T {
  let config = maskConfigSecrets(ctx, maskConfigSecrets(ctx, type.config), 'booking.apiKey');
  for (const path of customToolSecretPaths(parseConfig(type.config))) config = maskConfigSecrets(ctx, config, path);
  return { ...type, config };
}

/** The config text to store: validated, then its CRM apiKey sealed (or the stored one kept for its mask). */
async function configToStore(ctx: AppContext, id: number | null | undefined, text: string): Promise<string> {
  validateConversationTypeConfig(text);
  const previous = await typeConfigText(ctx.db, id);
  let sealed = sealConfigSecrets(ctx, text, previous);
  sealed = sealConfigSecrets(ctx, sealed, previous, 'booking.apiKey', 'the full Cal.com API key');
  // A custom tool's header values and signing secret (issue 22): sealed one by one, by position.
  for (const path of customToolSecretPaths(parseConfig(text))) sealed = sealConfigSecrets(ctx, sealed, previous, path, 'the full value');
  await checkCustomTools(ctx, parseConfig(text));
  return sealed;
}

function parseConfig(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/**
 * Checks config text the way the config editor's Save does: it must parse as JSON, then match the known
 * fields of packages/shared/src/schemas/conversation-type-config.ts. The 400 names the wrong field.
 */
/** A custom tool's parameters must compile as JSON Schema, and its URL must be one the server may call. */
async function checkCustomTools(ctx: AppContext, config: unknown): Promise<void> {
  const tools = readConversationTypeConfig(JSON.stringify(config)).tools ?? [];
  for (const [i, tool] of tools.entries()) {
    const schemaProblem = jsonSchemaProblem(tool.parameters);
    if (schemaProblem) throw badRequest(`Invalid configuration: tools.${i}.parameters: ${schemaProblem}`, 'INVALID_CONFIG');
    const urlProblem = await outboundUrlProblem(exampleUrl(tool.url), { allowPrivate: ctx.config.ALLOW_PRIVATE_URLS });
    if (urlProblem) throw badRequest(`Invalid configuration: tools.${i}.url: ${urlProblem}`, 'INVALID_CONFIG');
  }
}

export function validateConversationTypeConfig(text: string): void {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw badRequest(`The configuration is not valid JSON: ${(err as Error).message}`, 'INVALID_JSON');
  }
  if (conversationTypeConfig.safeParse(value).success) return;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw badRequest('The configuration must be a JSON object, or the string "GHL".', 'INVALID_CONFIG');
  }
  const issues = conversationTypeConfigObject.safeParse(value).error?.issues ?? [];
  const problems = issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
  throw badRequest(`Invalid configuration: ${problems.join('; ')}`, 'INVALID_CONFIG');
}

async function assertAccountExists(ctx: AppContext, id: number | null | undefined) {
  if (!id) return;
  const [account] = await ctx.db
    .select({ id: messagingAccounts.id })
    .from(messagingAccounts)
    .where(eq(messagingAccounts.id, id))
    .limit(1);
  if (!account) throw badRequest(`messagingAccountId: there is no messaging account ${id}.`, 'MESSAGING_ACCOUNT_NOT_FOUND');
}

/** Creates a type (no id) or edits one (id); the config is kept on edit unless given. */
export async function saveConversationType(ctx: AppContext, input: SaveInput): Promise<{ id: number }> {
  await assertAccountExists(ctx, input.messagingAccountId);
  let config = input.config === undefined ? undefined : await configToStore(ctx, input.id, input.config);
  if (input.publicTitle !== undefined) {
    // The form's "Public title" is a field of the config: set on the config being saved, else on the stored
    // one (as stored: its secrets stay sealed, and only publicTitle changes).
    const base = config ?? (await typeConfigText(ctx.db, input.id)) ?? '';
    const next = withPublicTitle(base, input.publicTitle);
    if (next !== base) config = next;
  }
  const fields = {
    title: input.title,
    rolePrompt: input.rolePrompt,
    triggerConversationPrompt: input.triggerConversationPrompt,
    checkingPrompt: input.checkingPrompt,
    errorPrompt: input.errorPrompt,
    initialMessage: input.initialMessage,
    messagingAccountId: input.messagingAccountId ?? null,
    ...(config !== undefined ? { config } : {}),
    ...(input.isPublic !== undefined ? { isPublic: input.isPublic } : {}),
  };
  if (input.id) {
    const [updated] = await ctx.db
      .update(conversationTypes)
      .set(fields)
      .where(eq(conversationTypes.id, input.id))
      .returning({ id: conversationTypes.id });
    if (!updated) throw typeNotFound();
    return updated;
  }
  const [created] = await ctx.db.insert(conversationTypes).values(fields).returning({ id: conversationTypes.id });
  return created;
}

/** Deletes a type with its phases; its conversations and accounts keep existing without a type. */
export async function deleteConversationType(ctx: AppContext, id: number): Promise<void> {
  const deleted = await ctx.db
    .delete(conversationTypes)
    .where(eq(conversationTypes.id, id))
    .returning({ id: conversationTypes.id });
  if (!deleted.length) throw typeNotFound();
}

/** Stores the config text exactly as written (formatting and unknown fields kept) once it validates. */
export async function saveConversationTypeConfig(ctx: AppContext, id: number, text: string): Promise<void> {
  const config = await configToStore(ctx, id, text);
  const updated = await ctx.db
    .update(conversationTypes)
    .set({ config })
    .where(eq(conversationTypes.id, id))
    .returning({ id: conversationTypes.id });
  if (!updated.length) throw typeNotFound();
}

/**
 * Spec §4 duplicate, done atomically: a copy titled '[D] ' + the original's title, with its fields, config
 * and phases. A type without a title is named after its id so the copy is still recognisable.
 */
export async function duplicateConversationType(ctx: AppContext, id: number): Promise<{ id: number }> {
  return ctx.db.transaction(async (tx) => {
    const [original] = await tx.select().from(conversationTypes).where(eq(conversationTypes.id, id)).limit(1);
    if (!original) throw typeNotFound();
    const [copy] = await tx
      .insert(conversationTypes)
      .values({
        title: `[D] ${original.title ?? `Conversation type ${original.id}`}`,
        rolePrompt: original.rolePrompt,
        triggerConversationPrompt: original.triggerConversationPrompt,
        checkingPrompt: original.checkingPrompt,
        errorPrompt: original.errorPrompt,
        initialMessage: original.initialMessage,
        config: original.config,
        messagingAccountId: original.messagingAccountId,
        // A working copy stays off the public start page until an admin marks it public (issue 12).
        isPublic: false,
      })
      .returning({ id: conversationTypes.id });
    const phases = await tx
      .select()
      .from(conversationPhases)
      .where(eq(conversationPhases.conversationTypeId, id))
      .orderBy(asc(conversationPhases.index), asc(conversationPhases.id));
    if (phases.length) {
      await tx.insert(conversationPhases).values(
        phases.map((p) => ({
          conversationTypeId: copy.id,
          index: p.index,
          prompt: p.prompt,
          transitionPrompt: p.transitionPrompt,
          followUpPrompt: p.followUpPrompt,
        })),
      );
    }
    return copy;
  });
}
