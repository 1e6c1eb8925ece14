import { PHASE } from '@sales-agent/shared/enums';

/** The phase in words: one definition with the server's, in packages/shared (spec §4's words). */
export { phaseWords } from '@sales-agent/shared/enums';

export type AiState = 'working' | 'paused' | 'needs-human' | 'ended';

/** AI working / paused (a person answers) / needs a human (-2, -1, errors) / ended or ignored. */
export function aiState(c: { phase: number; phaseCount: number; aiPaused: boolean; needsHuman?: boolean }): AiState {
  if (c.phase === PHASE.NEEDS_HUMAN || c.phase === PHASE.ERRORED || c.needsHuman) return 'needs-human';
  if (c.aiPaused) return 'paused';
  if (c.phase === PHASE.IGNORED || (c.phaseCount > 0 && c.phase === c.phaseCount)) return 'ended';
  return 'working';
}

export const AI_STATE_TEXT: Record<AiState, { label: string; color: string }> = {
  working: { label: 'AI working', color: 'teal' },
  paused: { label: 'AI paused: a person answers', color: 'yellow' },
  'needs-human': { label: 'Needs a person', color: 'red' },
  ended: { label: 'Ended', color: 'gray' },
};

/** The one definition lives in the shared package (server and web agree on it). */
export { isWorkingPhase } from '@sales-agent/shared/enums';
