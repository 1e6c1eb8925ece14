import { Alert, Anchor, Button, Group, Loader, Select, Stack, Text, Tooltip } from '@mantine/core';
import { IconPhone } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { TRUNCATE } from '@sales-agent/shared/limits';
import { truncate } from '@sales-agent/shared/truncate';
import { CONTACTS_PAGE_SIZE_DEFAULT, CONTACTS_PAGE_SIZES, type CrmOpportunity } from '@sales-agent/shared/schemas/crm';
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { PageTitle } from '../../../components/page-title.tsx';
import { QueryState } from '../../../components/query-state.tsx';
import { ACTIONS_COLUMN_WIDTH, RecordTable } from '../../../components/record-table.tsx';
import { paths } from '../../../config/paths.ts';
import { errorMessage } from '../../../lib/api-client.ts';
import { conversationTypeQuery } from '../api/conversation-types.ts';
import { contactsQuery, pipelinesQuery, usePlaceContactCall } from '../api/crm-contacts.ts';
import {
  currentCursor,
  firstPage,
  hasNextPage,
  hasPreviousPage,
  nextPage,
  pageCount,
  pageNumber,
  previousPage,
} from '../components/contacts-paging.ts';

const NO_PHONE = 'This contact has no phone number in GoHighLevel.';

/**
 * Spec §2.6 contacts: pipeline, stage and items-per-page selects; name, phone and Call per row; 'N of M' with
 * Previous/Next. Spec §4/§5: the stage select waits for a pipeline and is cleared when the pipeline changes;
 * a new stage or page size starts at page 1; Next follows the answer's cursor, Previous a stored one.
 */
export default function ConversationTypeContactsPage() {
  const { id = '' } = useParams();
  const pipelines = useQuery(pipelinesQuery(id));
  const type = useQuery(conversationTypeQuery(id));
  const [pipelineId, setPipelineId] = useState<string | null>(null);
  const [stageId, setStageId] = useState<string | null>(null);
  const [limit, setLimit] = useState<number>(CONTACTS_PAGE_SIZE_DEFAULT);
  const [paging, setPaging] = useState(firstPage);

  const contacts = useQuery({
    ...contactsQuery(id, { pipelineId: pipelineId ?? '', stageId, limit, cursor: currentCursor(paging) }),
    enabled: pipelineId !== null,
  });
  const stages = pipelines.data?.pipelines.find((p) => p.id === pipelineId)?.stages ?? [];
  const meta = contacts.isPlaceholderData ? undefined : contacts.data?.meta;
  const busy = contacts.isFetching;

  return (
    <Stack gap="md">
      <Group justify="space-between" align="flex-start">
        <div>
          <PageTitle>Contacts</PageTitle>
          {type.data && (
            <Text c="dimmed" mt={-8}>
              {truncate(type.data.label, TRUNCATE.configHeading)}
            </Text>
          )}
        </div>
        <Anchor component={Link} to={paths.admin.conversationTypeList}>
          Back to conversation types
        </Anchor>
      </Group>
      <QueryState query={pipelines} title="Could not load the GoHighLevel pipelines">
        {(data) => (
          <Stack gap="md">
            <Group align="flex-end" wrap="wrap">
              <Select
                label="Pipeline"
                placeholder="Choose a pipeline"
                data={data.pipelines.map((p) => ({ value: p.id, label: p.name }))}
                value={pipelineId}
                onChange={(value) => {
                  setPipelineId(value);
                  setStageId(null);
                  setPaging(firstPage());
                }}
                nothingFoundMessage="No pipelines"
                w={260}
              />
              <Select
                label="Stage"
                placeholder={pipelineId ? 'All stages' : 'Choose a pipeline first'}
                data={stages.map((s) => ({ value: s.id, label: s.name }))}
                value={stageId}
                onChange={(value) => {
                  setStageId(value);
                  setPaging(firstPage());
                }}
                disabled={!pipelineId}
                clearable
                w={260}
              />
              <Select
                label="Items per page"
                data={CONTACTS_PAGE_SIZES.map(String)}
                value={String(limit)}
                onChange={(value) => {
                  if (!value) return;
                  setLimit(Number(value));
                  setPaging(firstPage());
                }}
                allowDeselect={false}
                w={140}
              />
            </Group>
            {pipelineId === null ? (
              <Text c="dimmed">Choose a pipeline to see its contacts.</Text>
            ) : (
              <ContactsTable typeId={id} contacts={contacts.data?.opportunities} loading={contacts.isPending} error={contacts.isError ? contacts.error : null} />
            )}
            {pipelineId !== null && (
              <Group gap="sm" aria-label="Pagination">
                <Button
                  variant="default"
                  disabled={!hasPreviousPage(paging) || busy}
                  onClick={() => setPaging(previousPage(paging))}
                >
                  Previous
                </Button>
                <Text aria-live="polite" data-testid="contacts-page">
                  {pageNumber(paging)} of {meta ? pageCount(meta.total, limit) : '…'}
                </Text>
                <Button
                  variant="default"
                  disabled={!hasNextPage(paging, meta, limit) || busy}
                  onClick={() => meta && setPaging(nextPage(paging, meta))}
                >
                  Next
                </Button>
                {busy && <Loader size="xs" aria-label="Loading contacts" />}
              </Group>
            )}
          </Stack>
        )}
      </QueryState>
    </Stack>
  );
}

function ContactsTable(props: { typeId: string; contacts: CrmOpportunity[] | undefined; loading: boolean; error: Error | null }) {
  const call = usePlaceContactCall(props.typeId);
  const [callingId, setCallingId] = useState<string | null>(null);

  if (props.error) {
    return (
      <Alert color="red" title="Could not load the contacts">
        {errorMessage(props.error)}
      </Alert>
    );
  }
  if (props.loading || !props.contacts) return <Loader aria-label="Loading contacts" />;
  if (props.contacts.length === 0) return <Text c="dimmed">No contacts in this pipeline or stage.</Text>;

  // Spec §2.6: the call is placed, then its conversation opens in a new tab (viewOnly). The tab is opened in
  // the click itself (browsers block pop-ups opened after an await) and pointed at the conversation after.
  const placeCall = (opportunity: CrmOpportunity) => {
    const phone = opportunity.contact.phone;
    if (!phone) return;
    const tab = window.open('', '_blank');
    setCallingId(opportunity.contact.id);
    call.mutate(
      { phone, contactId: opportunity.contact.id },
      {
        onSuccess: ({ uuid }) => {
          const url = paths.conversation(uuid, true);
          if (tab) tab.location.href = url;
          else window.open(url, '_blank');
        },
        onError: () => tab?.close(),
        onSettled: () => setCallingId(null),
      },
    );
  };

  return (
    <RecordTable
      aria-label="Contacts"
      records={props.contacts}
      verticalSpacing="sm"
      customRowAttributes={(opportunity) => ({ 'aria-label': opportunity.contact.name })}
      columns={[
        { accessor: 'contact.name', title: 'Name' },
        {
          accessor: 'contact.phone',
          title: 'Phone',
          noWrap: true,
          render: ({ contact }) =>
            contact.phone ?? (
              <Text c="dimmed" size="sm" span>
                No phone
              </Text>
            ),
        },
        {
          accessor: 'call',
          title: 'Call',
          width: ACTIONS_COLUMN_WIDTH,
          render: (opportunity) => {
            const { contact } = opportunity;
            return contact.phone ? (
              <Button
                size="xs"
                leftSection={<IconPhone size={14} aria-hidden />}
                loading={callingId === contact.id}
                disabled={callingId !== null && callingId !== contact.id}
                onClick={() => placeCall(opportunity)}
                aria-label={`Call ${contact.name}`}
              >
                Call
              </Button>
            ) : (
              // A disabled button gets no hover, so the reason's tooltip sits on a wrapper; screen readers get it from the label.
              <Tooltip label={NO_PHONE}>
                <span tabIndex={0}>
                  <Button size="xs" leftSection={<IconPhone size={14} aria-hidden />} disabled aria-label={`Call ${contact.name}: ${NO_PHONE}`}>
                    Call
                  </Button>
                </span>
              </Tooltip>
            );
          },
        },
      ]}
    />
  );
}
