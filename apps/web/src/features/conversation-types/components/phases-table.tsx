import { Alert, Button, Group, Loader, type MantineTheme, NumberInput, Stack, Table, type TableTrProps, Text, Textarea, Title } from '@mantine/core';
import { IconDeviceFloppy, IconTrash, IconX } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { LIMITS } from '@sales-agent/shared/limits';
import { createContext, useContext, useState } from 'react';
import { RecordTable } from '../../../components/record-table.tsx';
import { errorMessage } from '../../../lib/api-client.ts';
import { confirmAction } from '../../../lib/confirm.tsx';
import { type ConversationPhase, conversationPhasesQuery, useDeleteConversationPhase, useSaveConversationPhase } from '../api/conversation-types.ts';

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

/** One row of the table: a stored phase (keyed by its id) or the creation row. */
interface PhaseRecord {
  key: string;
  initial: PhaseDraft;
}
const NEW_ROW = 'new';

/**
 * Spec §2.6 phases table of the edit page: every phase can be saved or deleted; 'Create Conversation
 * Phase' reveals a new row that hides once saved (spec §4). After a delete the page reloads after 1 s.
 * A mantine-datatable like the other admin lists: it scrolls sideways inside its frame on a phone while the
 * Save and Delete column stays pinned in view.
 */
export function PhasesTable({ typeId }: { typeId: number }) {
  const query = useQuery(conversationPhasesQuery(typeId));
  const [creating, setCreating] = useState(false);
  const nextIndex = query.data?.length ? Math.max(...query.data.map((p) => p.index)) + 1 : 0;
  const records: PhaseRecord[] = [
    ...(query.data ?? []).map((phase) => ({ key: String(phase.id), initial: toDraft(phase) })),
    ...(creating ? [{ key: NEW_ROW, initial: { index: nextIndex, prompt: '', transitionPrompt: '', followUpPrompt: '' } }] : []),
  ];

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
        <RecordTable
          aria-label="Conversation phases"
          records={records}
          idAccessor="key"
          striped={false}
          highlightOnHover={false}
          verticalSpacing="sm"
          verticalAlign="top"
          minHeight={records.length === 0 ? 110 : 0}
          emptyState={
            <Text c="dimmed" size="sm">
              No phases yet. Without phases the agent has no goal to work towards.
            </Text>
          }
          // Each row keeps its own draft, errors and busy flag (PhaseRowState); the cells below read them.
          rowFactory={({ record, rowProps, children }) => (
            <PhaseRowState
              typeId={typeId}
              initial={record.initial}
              onSaved={record.key === NEW_ROW ? () => setCreating(false) : undefined}
              onCancel={record.key === NEW_ROW ? () => setCreating(false) : undefined}
            >
              <PhaseTr rowProps={rowProps}>{children}</PhaseTr>
            </PhaseRowState>
          )}
          columns={[
            // A phone gets one column with the fields stacked under their labels, so the table fits the screen and
            // the pinned Actions column never covers a field (issue 24); a wider screen one column per field.
            { accessor: 'phase', title: 'Phase', visibleMediaQuery: PHONE, render: () => <StackedFieldsCell /> },
            { accessor: 'index', title: 'Index', width: 90, visibleMediaQuery: WIDE, render: () => <IndexCell /> },
            ...PROMPT_COLUMNS.map(({ field, label }) => ({
              accessor: field,
              title: label,
              visibleMediaQuery: WIDE,
              cellsStyle: () => ({ minWidth: 220 }),
              render: () => <PromptCell field={field} label={label} />,
            })),
            { accessor: 'actions', title: 'Actions', width: 110, render: () => <ActionsCell /> },
          ]}
        />
      )}
    </Stack>
  );
}

type PromptField = 'prompt' | 'transitionPrompt' | 'followUpPrompt';

const PROMPT_COLUMNS: { field: PromptField; label: string }[] = [
  { field: 'prompt', label: 'Prompt' },
  { field: 'transitionPrompt', label: 'Transition prompt' },
  { field: 'followUpPrompt', label: 'Follow-up prompt' },
];

/** Under the theme's `sm` breakpoint (48em): a phone. */
const PHONE = (theme: MantineTheme) => `(max-width: calc(${theme.breakpoints.sm} - 0.01em))`;
const WIDE = (theme: MantineTheme) => `(min-width: ${theme.breakpoints.sm})`;

interface PhaseRow {
  draft: PhaseDraft;
  setDraft: React.Dispatch<React.SetStateAction<PhaseDraft>>;
  errors: Partial<Record<keyof PhaseDraft, string>>;
  busy: boolean;
  isNew: boolean;
  /** The row's accessible name: 'Phase N' by its stored index, or 'New phase'. */
  rowName: string;
  save(): void;
  remove(): Promise<void>;
  cancel?: () => void;
}

const PhaseRowContext = createContext<PhaseRow | null>(null);
const usePhaseRow = () => {
  const row = useContext(PhaseRowContext);
  if (!row) throw new Error('A phase cell is rendered outside its row');
  return row;
};

/** The state and actions of one phase row, shared with its cells. */
function PhaseRowState(props: {
  typeId: number;
  initial: PhaseDraft;
  /** After a save (the phases have refreshed). */
  onSaved?: () => void;
  onCancel?: () => void;
  children: React.ReactNode;
}) {
  const [draft, setDraft] = useState(props.initial);
  const [errors, setErrors] = useState<PhaseRow['errors']>({});
  const saving = useSaveConversationPhase();
  const deleting = useDeleteConversationPhase();
  // A deleted phase's row stays busy until the page reloads.
  const busy = saving.isPending || deleting.isPending || deleting.isSuccess;
  const isNew = draft.id === undefined;
  const rowName = isNew ? 'New phase' : `Phase ${props.initial.index}`;

  const save = () => {
    const found: PhaseRow['errors'] = {};
    if (typeof draft.index !== 'number' || !Number.isInteger(draft.index) || draft.index < 0) found.index = 'Index must be 0 or more';
    if (!draft.prompt.trim()) found.prompt = 'Prompt is required';
    if (!draft.transitionPrompt.trim()) found.transitionPrompt = 'Transition prompt is required';
    setErrors(found);
    if (Object.keys(found).length) return;
    saving.mutate(
      {
        id: draft.id,
        index: draft.index as number,
        prompt: draft.prompt,
        transitionPrompt: draft.transitionPrompt,
        followUpPrompt: draft.followUpPrompt,
        conversationType: { id: props.typeId },
      },
      {
        onSuccess: ({ conversationPhase }) => {
          if (!isNew) setDraft(toDraft(conversationPhase));
          props.onSaved?.();
        },
      },
    );
  };

  const remove = async () => {
    if (!draft.id) return;
    if (!(await confirmAction('Delete this phase?'))) return;
    // Spec §4/§9: after a phase delete the page reloads after 1 second.
    deleting.mutate(draft.id, { onSuccess: () => setTimeout(() => window.location.reload(), LIMITS.phaseDeleteReloadDelayMs) });
  };

  const row: PhaseRow = { draft, setDraft, errors, busy, isNew, rowName, save, remove, cancel: props.onCancel };
  return <PhaseRowContext.Provider value={row}>{props.children}</PhaseRowContext.Provider>;
}

/** The table row itself, named for the E2E and for screen readers ('Phase 2', 'New phase'). */
function PhaseTr({ rowProps, children }: { rowProps: TableTrProps; children: React.ReactNode }) {
  const { rowName } = usePhaseRow();
  return (
    <Table.Tr {...rowProps} aria-label={rowName}>
      {children}
    </Table.Tr>
  );
}

/** A phone's one cell: the index and the three prompts, each under its visible label. */
function StackedFieldsCell() {
  return (
    <Stack gap="xs">
      <IndexCell visibleLabel />
      {PROMPT_COLUMNS.map(({ field, label }) => (
        <PromptCell key={field} field={field} label={label} visibleLabel />
      ))}
    </Stack>
  );
}

/** The label is the column's title on a wide screen (aria-label), shown above the field on a phone. */
const labelProps = (label: string, visible?: boolean) => (visible ? { label } : { 'aria-label': label });

function IndexCell({ visibleLabel }: { visibleLabel?: boolean }) {
  const { draft, setDraft, errors } = usePhaseRow();
  return (
    <NumberInput
      {...labelProps('Index', visibleLabel)}
      maw={visibleLabel ? 110 : undefined}
      value={draft.index}
      error={errors.index}
      min={0}
      allowDecimal={false}
      allowNegative={false}
      onChange={(value) => setDraft((d) => ({ ...d, index: value }))}
    />
  );
}

function PromptCell({ field, label, visibleLabel }: { field: PromptField; label: string; visibleLabel?: boolean }) {
  const { draft, setDraft, errors } = usePhaseRow();
  return (
    <Textarea
      {...labelProps(label, visibleLabel)}
      value={draft[field]}
      error={errors[field]}
      rows={LIMITS.phasePromptRows}
      onChange={(e) => {
        const value = e.currentTarget.value;
        setDraft((d) => ({ ...d, [field]: value }));
      }}
    />
  );
}

function ActionsCell() {
  const { isNew, busy, save, remove, cancel } = usePhaseRow();
  return (
    <Stack gap="xs">
      <Button size="xs" leftSection={<IconDeviceFloppy size={14} aria-hidden />} onClick={save} loading={busy}>
        Save
      </Button>
      {isNew ? (
        <Button size="xs" variant="default" leftSection={<IconX size={14} aria-hidden />} onClick={cancel} disabled={busy}>
          Cancel
        </Button>
      ) : (
        <Button size="xs" color="red" variant="light" leftSection={<IconTrash size={14} aria-hidden />} onClick={remove} disabled={busy}>
          Delete
        </Button>
      )}
    </Stack>
  );
}
