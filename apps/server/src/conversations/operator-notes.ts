/**
 * System notes that tell whoever runs the server what to configure (issue 24): stored once in a conversation
 * in the ADMIN's words, which name server settings such as OPENAI_API_KEY. A team member (role NORMAL) is not
 * the one who sets them: at presentation time they read the member's words instead, ending in "ask your
 * admin". Matched by the stored text, so notes stored before this existed are shown the same way.
 */
interface OperatorNote {
  admin: string;
  member: string;
}

const note = (admin: string, member: string): OperatorNote => ({ admin, member });

export const OPERATOR_NOTES = {
  /** A real prospect wrote and only the offline demo agent could answer (agent/llm/demo-policy.ts). */
  noLlm: note(
    'No LLM is configured (OPENAI_API_KEY): the offline demo agent answers only web chats and simulated prospects, so a person needs to answer this prospect.',
    'No AI model is set up on this server yet, so a person needs to answer this prospect. Ask your admin to set one up.',
  ),
  /** A voice note arrived and nothing can transcribe it (channels/inbound-media.ts). */
  voiceNoteNoTranscription: note(
    'A voice note arrived and no speech-to-text provider is configured (OPENAI_API_KEY): a person needs to listen to it.',
    'A voice note arrived and speech to text is not set up on this server yet: a person needs to listen to it. Ask your admin to set it up.',
  ),
} as const;

const NOTES: readonly OperatorNote[] = Object.values(OPERATOR_NOTES);

/** A list preview is the first 160 characters of a note: a start this long is enough to know it. */
const PREVIEW_MIN = 40;

/** A server setting's name in parentheses, e.g. " (OPENAI_API_KEY)" or " (META_APP_ID, META_APP_SECRET)". */
const SETTING_NAMES = /\s*\((?:[A-Z][A-Z0-9]*_[A-Z0-9_]+(?:,\s*|\s+and\s+|\s+or\s+)?)+\)/g;

/**
 * A SYSTEM note's text as this viewer reads it: unchanged for an ADMIN; for anyone else the member's words of
 * a known operator note (also when the text is a preview cut from one), and no setting names in any other.
 */
export function systemNoteForViewer(text: string, operator: boolean): string {
  if (operator) return text;
  const known = NOTES.find((n) => n.admin === text || (text.length >= PREVIEW_MIN && n.admin.startsWith(text)));
  if (known) return known.member;
  return text.replace(SETTING_NAMES, '');
}
