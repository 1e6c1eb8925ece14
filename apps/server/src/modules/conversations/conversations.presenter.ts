import { systemNoteForViewer } from '../../conversations/operator-notes.ts';
import { type AccountType, PHASE } from '@sales-agent/shared/enums';
import { phoneOf } from '@sales-agent/shared/phone';
import { publicTitleOf } from '@sales-agent/shared/schemas/conversation-type-config';
import type { MessageDelivery } from '@sales-agent/shared/schemas/conversation';
import { isUnreadFor } from './conversation-reads.ts';

/**
 * How conversations are answered to the web (spec §7.6): the list's rows and the detail, from what the
 * service's statements read. No queries here; conversations.service.ts reads, this file shapes.
 */

export type ListRow = {
  id: number;
  uuid: string;
  phase: number;
  conversationTypeId: number | null;
  typeTitle: string | null;
  rating: number | null;
  outcome: string | null;
  recordingDuration: number | null;
  recordingUrl: string | null;
  messagesCount: number;
  lastMessageDate: Date | null;
  prospectId: number | null;
  prospectUuid: string | null;
  prospectName: string | null;
  prospectExternalId: string | null;
  accountId: number | null;
  pageName: string | null;
  accountType: AccountType | null;
  aiPaused: boolean;
  costUsd: number;
  lastMessage: unknown;
  phaseCount: number;
  followUpStatus: 'ACTIVE' | 'INACTIVE' | null;
  followUpCount: number | null;
  followUpHasErrors: boolean | null;
  lastReadAt: Date | null;
  assignee: string | null;
  state: 'open' | 'resolved';
  snoozedUntil: Date | null;
};

/** Who wrote a message (issue 24): the prospect (or visitor), a teammate, or the AI (system notes too). */
export function authorOf(m: { role: 'SYSTEM' | 'PROSPECT' | 'AGENT'; writtenByHuman?: boolean | null; authorEmail?: string | null }) {
  if (m.role === 'PROSPECT') return { kind: 'prospect' as const };
  if (m.role === 'AGENT' && m.writtenByHuman) return m.authorEmail ? { kind: 'person' as const, email: m.authorEmail } : { kind: 'person' as const };
  return { kind: 'ai' as const };
}

/** The json_build_object of the latest message (a string or already parsed, depending on the driver). */
function presentLastMessage(value: unknown, operator: boolean) {
  if (value === null || value === undefined) return null;
  const m = (typeof value === 'string' ? JSON.parse(value) : value) as {
    role: 'SYSTEM' | 'PROSPECT' | 'AGENT';
    preview: string;
    dateSent: string;
    writtenByHuman?: boolean;
    authorEmail?: string | null;
  };
  const preview = m.role === 'SYSTEM' ? systemNoteForViewer(m.preview, operator) : m.preview;
  return { role: m.role, preview, dateSent: new Date(m.dateSent).toISOString(), author: authorOf(m) };
}

/** A row of the list; `operator`: the viewer is an ADMIN, who reads system notes' setting names (operator-notes.ts). */
export function presentListRow(r: ListRow, operator: boolean) {
  const lastMessage = presentLastMessage(r.lastMessage, operator);
  return {
    id: r.id,
    uuid: r.uuid,
    phase: r.phase,
    conversationTypeId: r.conversationTypeId,
    ConversationType: r.conversationTypeId === null ? null : { id: r.conversationTypeId, title: r.typeTitle },
    rating: r.rating,
    outcome: r.outcome,
    recordingDuration: r.recordingDuration,
    recordingUrl: r.recordingUrl,
    messagesCount: r.messagesCount,
    lastMessageDate: r.lastMessageDate?.toISOString() ?? null,
    prospectId: r.prospectId,
    Prospect:
      r.prospectUuid === null || r.accountId === null || r.accountType === null
        ? null
        : {
            uuid: r.prospectUuid,
            name: r.prospectName,
            // SMS, WhatsApp and call prospects are known by their number (issue 24).
            phone: r.prospectExternalId === null ? null : phoneOf(r.accountType, r.prospectExternalId),
            messagingAccount: { id: r.accountId, pageName: r.pageName ?? '', type: r.accountType },
          },
    phaseCount: r.phaseCount,
    lastMessage,
    aiPaused: r.aiPaused,
    // A person handling it (took over or replied) or having resolved it: it no longer needs one (issue 24).
    needsHuman:
      (r.phase === PHASE.NEEDS_HUMAN || r.phase === PHASE.ERRORED || r.followUpHasErrors === true) && r.state === 'open' && !r.aiPaused,
    followUp:
      r.followUpStatus === null
        ? null
        : { status: r.followUpStatus, followUpCount: r.followUpCount ?? 0, hasErrors: r.followUpHasErrors === true },
    costUsd: r.costUsd,
    unread: isUnreadFor(lastMessage, r.lastReadAt),
    assignee: r.assignee,
    state: r.state,
    snoozedUntil: r.snoozedUntil?.toISOString() ?? null,
  };
}

/** The JSON value the detail statement answers (keys as written in the service's prepareDetail). */
export interface StoredDetail {
  id: number;
  uuid: string;
  phase: number;
  rating: number | null;
  recordingDuration: number | null;
  recordingUrl: string | null;
  conversationTypeId: number | null;
  /** The playbook version the conversation started on (issue 25); absent/null: the draft. */
  typeVersion?: number | null;
  prospectId: number | null;
  messagingAccountId: number | null;
  aiPaused: boolean;
  state: 'open' | 'resolved';
  assignee: string | null;
  snoozedUntil: string | null;
  type: { id: number; title: string | null; config?: string | null; initialMessage: string | null } | null;
  prospect: { uuid: string; name: string | null; externalId: string } | null;
  account: { id: number; pageName: string; type: AccountType } | null;
  phases: { index: number; prompt: string }[] | null;
  messages: {
    id: number;
    role: 'SYSTEM' | 'PROSPECT' | 'AGENT';
    message: string;
    dateSent: string;
    previousMessage?: string | null;
    editedAt?: string | null;
    deletedAt?: string | null;
    hasMedia?: boolean;
    mediaType?: string | null;
    writtenByHuman?: boolean;
    authorEmail?: string | null;
    delivery?: { state: MessageDelivery['state']; error: string | null } | null;
  }[] | null;
  granted: boolean;
}

/**
 * The detail (GET /api/conversation/{uuid}) for a viewer whose `canAdminister` the policy decided; `operator`:
 * the viewer is an ADMIN, who reads what to set on the server in system notes (operator-notes.ts).
 */
export function presentDetail(detail: StoredDetail, canAdminister: boolean, isDemoAgent: boolean, operator: boolean) {
  const phases = detail.phases ?? [];
  return {
    id: detail.id,
    uuid: detail.uuid,
    phase: detail.phase,
    rating: detail.rating,
    recordingDuration: detail.recordingDuration,
    recordingUrl: detail.recordingUrl,
    conversationTypeId: detail.conversationTypeId,
    typeVersion: detail.typeVersion ?? null,
    ConversationType: detail.type
      ? {
          id: detail.type.id,
          // The type's title is the team's name for it; a visitor reads its public title (issue 24).
          title: canAdminister ? detail.type.title : publicTitleOf(detail.type.config),
          initialMessage: detail.type.initialMessage,
          conversation_phases: canAdminister ? phases : [],
        }
      : null,
    phaseCount: phases.length,
    prospectId: detail.prospectId,
    Prospect:
      detail.prospect && detail.account
        ? {
            uuid: detail.prospect.uuid,
            name: detail.prospect.name,
            phone: canAdminister ? phoneOf(detail.account.type, detail.prospect.externalId) : null,
            messagingAccount: detail.account,
          }
        : null,
    // dateSent is already ISO 8601 in UTC to the millisecond (to_char truncates microseconds, as Date did).
    messages: (detail.messages ?? []).map((m) => withChannelMarks(m.role === 'SYSTEM' ? { ...m, message: systemNoteForViewer(m.message, operator) } : m)),
    canAdminister,
    aiPaused: detail.aiPaused,
    isDemoAgent,
    ended: isEnded(detail.phase, phases.length),
    // Who owns it is the team's business: a visitor sees none.
    assignee: canAdminister ? detail.assignee : null,
    state: detail.state,
    snoozedUntil: canAdminister ? detail.snoozedUntil : null,
  };
}

/** A message with only the channel marks it has (edited, deleted, stored media): plain messages stay as before. */
function withChannelMarks(m: NonNullable<StoredDetail['messages']>[number]) {
  const { previousMessage, editedAt, deletedAt, hasMedia, mediaType, writtenByHuman, authorEmail, delivery, ...plain } = m;
  return {
    ...plain,
    author: authorOf({ role: m.role, writtenByHuman, authorEmail }),
    ...(editedAt ? { editedAt, previousMessage: previousMessage ?? null } : {}),
    ...(deletedAt ? { deletedAt } : {}),
    ...(hasMedia ? { hasMedia: true, mediaType: mediaType ?? null } : {}),
    ...(delivery ? { delivery: delivery.error ? { state: delivery.state, error: delivery.error } : { state: delivery.state } } : {}),
  };
}

/** A json column: node-postgres and PGlite parse it, a driver that does not hands over the text. */
export function parseJson<T>(value: unknown): T | null {
  if (value === null || value === undefined) return null;
  return (typeof value === 'string' ? JSON.parse(value) : value) as T;
}

/** The playbook ended (phase N of a type with phases) or the conversation is ignored (9999). */
export function isEnded(phase: number, phaseCount: number): boolean {
  return phase === PHASE.IGNORED || (phaseCount > 0 && phase === phaseCount);
}
