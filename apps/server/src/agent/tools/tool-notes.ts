import type { HistoryMessage } from '../../conversations/conversation-store.ts';

/**
 * Tool results reach the reply draft as SYSTEM lines of the turn's history (never stored as messages, never
 * sent to the prospect): the drafting prompt stays one structured request whatever tools ran.
 */
const PREFIX = '[tool] ';

export interface ToolNote {
  name: string;
  ok: boolean;
  /** The tool's JSON answer, or the error sentence when it failed. */
  value: unknown;
}

export function toolNoteMessage(note: ToolNote): HistoryMessage {
  const text = note.ok
    ? `${PREFIX}${note.name} answered: ${JSON.stringify(note.value)}`
    : `${PREFIX}${note.name} failed: ${String(note.value)}. Tell the prospect it did not work and offer a next step or a colleague.`;
  return { role: 'SYSTEM', message: text };
}

/** The notes after the prospect's latest message (this turn's), decoded. */
export function toolNotesOf(history: HistoryMessage[]): ToolNote[] {
  const lastProspect = history.findLastIndex((m) => m.role === 'PROSPECT');
  return history.slice(lastProspect + 1).flatMap((m): ToolNote[] => {
    if (m.role !== 'SYSTEM' || !m.message.startsWith(PREFIX)) return [];
    const match = /^(\S+) (answered|failed): ([\s\S]*)$/.exec(m.message.slice(PREFIX.length));
    if (!match) return [];
    const [, name, verb, rest] = match;
    if (verb === 'failed') return [{ name: name!, ok: false, value: rest!.replace(/\. Tell the prospect[\s\S]*$/, '') }];
    try {
      return [{ name: name!, ok: true, value: JSON.parse(rest!) as unknown }];
    } catch {
      return [{ name: name!, ok: true, value: rest }];
    }
  });
}
