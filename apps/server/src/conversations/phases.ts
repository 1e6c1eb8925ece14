import { PHASE } from '@sales-agent/shared/enums';

/** Phase codes (spec §4): -3 waiting, -2 needs human, -1 errored, 0..N-1 working, N ended, 9999 ignored. */
export { isWorkingPhase } from '@sales-agent/shared/enums';

/** Every code an admin may set on a conversation whose type has `phaseCount` phases. */
export function isValidPhase(phase: number, phaseCount: number): boolean {
  return (
    Number.isInteger(phase) &&
    (phase === PHASE.WAITING || phase === PHASE.NEEDS_HUMAN || phase === PHASE.ERRORED || phase === PHASE.IGNORED ||
      (phase >= 0 && phase <= phaseCount))
  );
}
