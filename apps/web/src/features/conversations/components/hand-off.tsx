import { Button, Group, Select } from '@mantine/core';
import type { ConversationDetail } from '@sales-agent/shared/schemas/conversation';
import { IconHandStop, IconRobot } from '@tabler/icons-react';
import { useEffect, useState } from 'react';
import { useHandBack, useTakeOver } from '../api/conversation-changes.ts';
import { isWorkingPhase, phaseWords } from '../lib/phase-words.ts';

/**
 * Take over / Hand back to the AI (issue 12). Taking over pauses the AI as a person's message does; handing
 * back resumes it at a chosen working phase (and it answers an unanswered prospect message at once).
 */
export function HandOff({ conversation: c }: { conversation: ConversationDetail }) {
  const phases = c.ConversationType?.conversation_phases ?? [];
  const options = Array.from({ length: c.phaseCount }, (_, i) => ({
    value: String(i),
    label: `${phaseWords(i, c.phaseCount)}${phases.find((p) => p.index === i) ? `: ${phases.find((p) => p.index === i)!.prompt.slice(0, 40)}` : ''}`,
  }));
  const current = isWorkingPhase(c.phase, c.phaseCount) ? String(c.phase) : '0';
  const [phase, setPhase] = useState<string>(current);
  const takeOver = useTakeOver();
  const handBack = useHandBack();
  const busy = takeOver.isPending || handBack.isPending;
  useEffect(() => setPhase(current), [current]);
  // -3 is the AI reading a burst of messages: it is working, not waiting for a person.
  const paused = c.aiPaused || (!isWorkingPhase(c.phase, c.phaseCount) && c.phase !== -3);

  return (
    <Group gap="xs" align="flex-end" data-testid="hand-off">
      {!c.aiPaused && (
        <Button {...small(busy)} color="yellow" leftSection={<IconHandStop size={16} aria-hidden />} onClick={() => takeOver.mutate({ conversation: c })}>
          Take over
        </Button>
      )}
      {paused && c.phaseCount > 0 && (
        <>
          <Select
            size="xs"
            label="Resume at"
            data={options}
            value={phase}
            onChange={(v) => v !== null && setPhase(v)}
            allowDeselect={false}
            w={220}
          />
          <Button
            {...small(busy)}
            color="teal"
            leftSection={<IconRobot size={16} aria-hidden />}
            onClick={() => handBack.mutate({ conversation: c, phase: Number(phase) })}
            data-testid="hand-back"
          >
            Hand back to the AI
          </Button>
        </>
      )}
    </Group>
  );
}

/** Both buttons: small, light, and busy together (one change at a time). */
const small = (busy: boolean) => ({ size: 'xs', variant: 'light', loading: busy }) as const;
