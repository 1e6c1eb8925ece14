import { Alert, Button, Group, Loader, NumberInput, Stack, Table, Text, Textarea, Title } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { LIMITS } from '@sales-agent/shared/limits';
import { useState } from 'react';
import { errorMessage } from '../../../lib/api-client.ts';
import { confirmAction } from '../../../lib/confirm.tsx';
import { toastError, toastSuccess } from '../../../lib/toast.ts';
import {
  type ConversationPhase,
  conversationPhasesQuery,
  deleteConversationPhase,
  saveConversationPhase,
} from '../api/conversation-types.ts';

interface PhaseDraft {
  id?: number;
  index: number | string;
  prompt: string;
  transitionPrompt: string;
  followUpPrompt: string;
}

const toDraft = (phase: ConversationPhase): PhaseDraft => ({
  id: phase.id,
  index: phase.index,
  prompt: phase.prompt,
  transitionPrompt: phase.transitionPrompt,
  followUpPrompt: phase.followUpPrompt ?? '',
});

/**
 * Spec §2.6 phases table of the edit page: every phase can be saved or deleted; 'Create Conversation
 * Phase' reveals a new row that hides once saved (spec §4). After a delete the page reloads after 1 s.
 */
export function PhasesTable({ typeId }: { typeId: number }) {
  const query = useQuery(conversationPhasesQuery(typeId));
  const client = useQueryClient();
  const [creating, setCreating] = useState(false);

  const refresh = () => client.invalidateQueries({ queryKey: ['conversation-types'] });
  const nextIndex = query.data?.length ? Math.max(...query.data.map((p) => p.index)) + 1 : 0;

  return (
    <Stack mt="xl">
      <Group justify="space-between">
        <Title order={3}>Conversation phases</Title>
        <Button onClick={() => setCreating(true)} disabled={creating}>
          Create Conversation Phase
        </Button>
      </Group>
      <Text size="sm" c="dimmed">
        Phases run in index order from 0. The prompt is the goal of the phase, the transition prompt the condition
        for moving to the next one, the follow-up prompt writes a nudge when the prospect goes quiet.
      </Text>
      {query.isPending && <Loader aria-label="Loading phases" />}
      {query.isError && <Alert color="red">{errorMessage(query.error)}</Alert>}
      {query.data && (
        <Table.ScrollContainer minWidth={900}>
          <Table aria-label="Conversation phases" verticalSpacing="sm" style={{ tableLayout: 'fixed' }}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th w={90}>Index</Table.Th>
                <Table.Th>Prompt</Table.Th>
                <Table.Th>Transition prompt</Table.Th>
                <Table.Th>Follow-up prompt</Table.Th>
                <Table.Th w={110}>Actions</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {query.data.map((phase) => (
                <PhaseRow key={`${phase.id}`} typeId={typeId} initial={toDraft(phase)} onSaved={refresh} />
              ))}
              {creating && (
                <PhaseRow
                  typeId={typeId}
                  initial={{ index: nextIndex, prompt: '', transitionPrompt: '', followUpPrompt: '' }}
                  onSaved={async () => {
                    setCreating(false);
                    await refresh();
                  }}
                  onCancel={() => setCreating(false)}
                />
              )}
              {query.data.length === 0 && !creating && (
                <Table.Tr>
                  <Table.Td colSpan={5}>
                    <Text c="dimmed" size="sm">
                      No phases yet. Without phases the agent has no goal to work towards.
                    </Text>
                  </Table.Td>
                </Table.Tr>
              )}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </Stack>
  );
}

function PhaseRow(props: { typeId: number; initial: PhaseDraft; onSaved: () => Promise<void> | void; onCancel?: () => void }) {
  const [draft, setDraft] = useState(props.initial);
  const [errors, setErrors] = useState<Partial<Record<keyof PhaseDraft, string>>>({});
  const [busy, setBusy] = useState(false);
  const isNew = draft.id === undefined;
  const rowName = isNew ? 'New phase' : `Phase ${props.initial.index}`;

  const text = (key: 'prompt' | 'transitionPrompt' | 'followUpPrompt') => ({
    value: draft[key],
    error: errors[key],
    rows: LIMITS.phasePromptRows,
    onChange: (e: React.ChangeEvent<HTMLTextAreaElement>) => {
      const value = e.currentTarget.value;
      setDraft((d) => ({ ...d, [key]: value }));
    },
  });

  const save = async () => {
    const found: typeof errors = {};
    if (typeof draft.index !== 'number' || !Number.isInteger(draft.index) || draft.index < 0) found.index = 'Index must be 0 or more';
    if (!draft.prompt.trim()) found.prompt = 'Prompt is required';
    if (!draft.transitionPrompt.trim()) found.transitionPrompt = 'Transition prompt is required';
    setErrors(found);
    if (Object.keys(found).length) return;
    setBusy(true);
    try {
      const { conversationPhase } = await saveConversationPhase({
        id: draft.id,
        index: draft.index as number,
        prompt: draft.prompt,
        transitionPrompt: draft.transitionPrompt,
        followUpPrompt: draft.followUpPrompt,
        conversationType: { id: props.typeId },
      });
      toastSuccess('Phase saved successfully!');
      if (!isNew) setDraft(toDraft(conversationPhase));
      await props.onSaved();
    } catch (err) {
      toastError(err);
    } finally {
      setBusy(false);
    }
  };

  const remove = async () => {
    if (!draft.id) return;
    if (!(await confirmAction('Delete this phase?'))) return;
    setBusy(true);
    try {
      await deleteConversationPhase(draft.id);
      toastSuccess('Phase deleted successfully');
      // Spec §4/§9: after a phase delete the page reloads after 1 second.
      setTimeout(() => window.location.reload(), LIMITS.phaseDeleteReloadDelayMs);
    } catch (err) {
      toastError(err);
      setBusy(false);
    }
  };

  return (
    <Table.Tr aria-label={rowName} style={{ verticalAlign: 'top' }}>
      <Table.Td>
        <NumberInput
          aria-label="Index"
          value={draft.index}
          error={errors.index}
          min={0}
          allowDecimal={false}
          allowNegative={false}
          onChange={(value) => setDraft((d) => ({ ...d, index: value }))}
        />
      </Table.Td>
      <Table.Td>
        <Textarea aria-label="Prompt" {...text('prompt')} />
      </Table.Td>
      <Table.Td>
        <Textarea aria-label="Transition prompt" {...text('transitionPrompt')} />
      </Table.Td>
      <Table.Td>
        <Textarea aria-label="Follow-up prompt" {...text('followUpPrompt')} />
      </Table.Td>
      <Table.Td>
        <Stack gap="xs">
          <Button size="xs" onClick={save} loading={busy}>
            Save
          </Button>
          {isNew ? (
            <Button size="xs" variant="default" onClick={props.onCancel} disabled={busy}>
              Cancel
            </Button>
          ) : (
            <Button size="xs" color="red" variant="light" onClick={remove} disabled={busy}>
              Delete
            </Button>
          )}
        </Stack>
      </Table.Td>
    </Table.Tr>
  );
}
