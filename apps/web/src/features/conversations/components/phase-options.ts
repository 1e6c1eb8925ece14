import { PHASE, phaseLabel } from '@sales-agent/shared/enums';
import { TRUNCATE } from '@sales-agent/shared/limits';
import { truncate } from '@sales-agent/shared/truncate';

/**
 * The phase select of spec §2.13/§4: the special codes -3, -2, -1, each working phase with its prompt cut to
 * 50 characters, N (end) and 9999 (ignored).
 */
export function phaseOptions(phases: { index: number; prompt: string }[], phaseCount: number) {
  const working = phases.length
    ? phases.map((p) => ({ value: String(p.index), label: `${p.index}: ${truncate(p.prompt, TRUNCATE.phaseSelect)}` }))
    : Array.from({ length: phaseCount }, (_, i) => ({ value: String(i), label: phaseLabel(i, phaseCount) }));
  return [
    ...[PHASE.WAITING, PHASE.NEEDS_HUMAN, PHASE.ERRORED].map((code) => ({ value: String(code), label: `${code}: ${phaseLabel(code, phaseCount)}` })),
    ...working,
    { value: String(phaseCount), label: `${phaseCount}: ${phaseLabel(phaseCount, phaseCount)}` },
    { value: String(PHASE.IGNORED), label: `${PHASE.IGNORED}: ${phaseLabel(PHASE.IGNORED, phaseCount)}` },
  ];
}

/** The agent is (about to be) writing: debounce window open, or a prospect message awaits an answer. */
export function isAgentWorking(conversation: {
  phase: number;
  phaseCount: number;
  aiPaused: boolean;
  messages: { role: string }[];
}): boolean {
  if (conversation.phase === PHASE.WAITING) return true;
  if (conversation.aiPaused) return false;
  const working = conversation.phase >= 0 && conversation.phase < conversation.phaseCount;
  return working && conversation.messages.at(-1)?.role === 'PROSPECT';
}
