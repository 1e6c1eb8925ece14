import { Alert, Button, Group, Loader, Text } from '@mantine/core';
import { IconAddressBook, IconCopy } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { TRUNCATE } from '@sales-agent/shared/limits';
import { isCrmLinked } from '@sales-agent/shared/schemas/conversation-type-config';
import { truncate } from '@sales-agent/shared/truncate';
import { Link, useNavigate } from 'react-router';
import { PageTitle } from '../../../components/page-title.tsx';
import { actionsColumn, DeleteAction, EditConfigActions, RecordTable } from '../../../components/record-table.tsx';
import { paths } from '../../../config/paths.ts';
import { errorMessage } from '../../../lib/api-client.ts';
import { confirmAction } from '../../../lib/confirm.tsx';
import { toastError } from '../../../lib/toast.ts';
import {
  type ConversationTypeListItem,
  conversationTypesQuery,
  useDeleteConversationType,
  useDuplicateConversationType,
} from '../api/conversation-types.ts';

/** Spec §2.6 list: ID, prompt or title (200 characters), Edit, Config, Duplicate, Delete, and Contacts for CRM-linked types. */
export default function ConversationTypeListPage() {
  const query = useQuery(conversationTypesQuery());
  const navigate = useNavigate();
  const duplicateType = useDuplicateConversationType();
  const deleteType = useDeleteConversationType();
  const busyId = duplicateType.isPending ? duplicateType.variables : deleteType.isPending ? deleteType.variables : null;

  // Spec §5: the type must be in the list loaded on this page, else 'Conversation type not found'.
  const duplicate = (id: number) => {
    if (!query.data?.some((t) => t.id === id)) {
      toastError('Conversation type not found');
      return;
    }
    duplicateType.mutate(id, { onSuccess: ({ conversationType }) => navigate(paths.admin.conversationTypeEdit(conversationType.id)) });
  };

  const remove = async (type: ConversationTypeListItem) => {
    const confirmed = await confirmAction(
      `Delete conversation type #${type.id}? Its phases are deleted too; its conversations are kept without a type.`,
    );
    if (confirmed) deleteType.mutate(type.id);
  };

  return (
    <>
      {/* On a phone the button wraps under the title: keep it off the table. */}
      <Group justify="space-between" align="flex-start" mb={{ base: 'md', sm: 0 }}>
        <PageTitle>Conversation types</PageTitle>
        <Button component={Link} to={paths.admin.conversationTypeCreate}>
          Create conversation type
        </Button>
      </Group>
      {query.isPending && <Loader aria-label="Loading conversation types" />}
      {query.isError && (
        <Alert color="red" title="Could not load the conversation types">
          {errorMessage(query.error)}
        </Alert>
      )}
      {query.data && query.data.length === 0 && (
        <Text c="dimmed">No conversation types yet. Create one to give the agent its first playbook.</Text>
      )}
      {query.data && query.data.length > 0 && (
        <RecordTable
          aria-label="Conversation types"
          records={query.data}
          verticalSpacing="sm"
          customRowAttributes={(type) => ({ 'aria-label': `Conversation type ${type.id}` })}
          columns={[
            { accessor: 'id', title: 'ID', width: 70 },
            {
              accessor: 'label',
              title: 'Prompt or title',
              // A phone shows the start of a long prompt beside the pinned actions; the table scrolls for the rest.
              cellsStyle: () => ({ whiteSpace: 'pre-wrap', wordBreak: 'break-word', minWidth: 180 }),
              render: (type) => truncate(type.label, TRUNCATE.typeList),
            },
            actionsColumn((type: ConversationTypeListItem) => (
              <>
                <EditConfigActions editTo={paths.admin.conversationTypeEdit(type.id)} configTo={paths.admin.conversationTypeConfig(type.id)} />
                {isCrmLinked(type.config) && (
                  <Button
                    size="xs"
                    variant="light"
                    color="teal"
                    leftSection={<IconAddressBook size={14} aria-hidden />}
                    component={Link}
                    to={paths.admin.conversationTypeContacts(type.id)}
                  >
                    Contacts
                  </Button>
                )}
                <Button
                  size="xs"
                  variant="light"
                  color="gray"
                  leftSection={<IconCopy size={14} aria-hidden />}
                  loading={busyId === type.id}
                  onClick={() => duplicate(type.id)}
                >
                  Duplicate
                </Button>
                <DeleteAction disabled={busyId === type.id} onClick={() => remove(type)} />
              </>
            )),
          ]}
        />
      )}
    </>
  );
}
