import { Alert, Button, Group, Loader, Table, Text } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { TRUNCATE } from '@sales-agent/shared/limits';
import { isCrmLinked } from '@sales-agent/shared/schemas/conversation-type-config';
import { truncate } from '@sales-agent/shared/truncate';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { PageTitle } from '../../../components/page-title.tsx';
import { paths } from '../../../config/paths.ts';
import { errorMessage } from '../../../lib/api-client.ts';
import { confirmAction } from '../../../lib/confirm.tsx';
import { toastError, toastSuccess } from '../../../lib/toast.ts';
import {
  type ConversationTypeListItem,
  conversationTypesQuery,
  deleteConversationType,
  duplicateConversationType,
} from '../api/conversation-types.ts';

/** Spec §2.6 list: ID, prompt or title (200 characters), Edit, Config, Duplicate, Delete, and Contacts for CRM-linked types. */
export default function ConversationTypeListPage() {
  const query = useQuery(conversationTypesQuery());
  const client = useQueryClient();
  const navigate = useNavigate();
  const [busyId, setBusyId] = useState<number | null>(null);

  const refresh = () => client.invalidateQueries({ queryKey: ['conversation-types'] });

  // Spec §5: the type must be in the list loaded on this page, else 'Conversation type not found'.
  const duplicate = async (id: number) => {
    if (!query.data?.some((t) => t.id === id)) {
      toastError('Conversation type not found');
      return;
    }
    setBusyId(id);
    try {
      const { conversationType } = await duplicateConversationType(id);
      await refresh();
      toastSuccess('Conversation type duplicated successfully');
      navigate(paths.admin.conversationTypeEdit(conversationType.id));
    } catch (err) {
      toastError(err);
    } finally {
      setBusyId(null);
    }
  };

  const remove = async (type: ConversationTypeListItem) => {
    const confirmed = await confirmAction(
      `Delete conversation type #${type.id}? Its phases are deleted too; its conversations are kept without a type.`,
    );
    if (!confirmed) return;
    setBusyId(type.id);
    try {
      const { message } = await deleteConversationType(type.id);
      toastSuccess(message);
      await refresh();
    } catch (err) {
      toastError(err);
    } finally {
      setBusyId(null);
    }
  };

  return (
    <>
      <Group justify="space-between" align="flex-start">
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
        <Table.ScrollContainer minWidth={560}>
          <Table striped highlightOnHover aria-label="Conversation types" verticalSpacing="sm">
            <Table.Thead>
              <Table.Tr>
                <Table.Th w={70}>ID</Table.Th>
                <Table.Th>Prompt or title</Table.Th>
                <Table.Th w={1}>Actions</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {query.data.map((type) => (
                <Table.Tr key={type.id} aria-label={`Conversation type ${type.id}`}>
                  <Table.Td>{type.id}</Table.Td>
                  <Table.Td style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}>
                    {truncate(type.label, TRUNCATE.typeList)}
                  </Table.Td>
                  <Table.Td>
                    <Group gap="xs" wrap="nowrap">
                      <Button size="xs" variant="light" component={Link} to={paths.admin.conversationTypeEdit(type.id)}>
                        Edit
                      </Button>
                      <Button size="xs" variant="light" component={Link} to={paths.admin.conversationTypeConfig(type.id)}>
                        Config
                      </Button>
                      {isCrmLinked(type.config) && (
                        <Button size="xs" variant="light" color="teal" component={Link} to={paths.admin.conversationTypeContacts(type.id)}>
                          Contacts
                        </Button>
                      )}
                      <Button size="xs" variant="light" color="gray" loading={busyId === type.id} onClick={() => duplicate(type.id)}>
                        Duplicate
                      </Button>
                      <Button size="xs" variant="light" color="red" disabled={busyId === type.id} onClick={() => remove(type)}>
                        Delete
                      </Button>
                    </Group>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </>
  );
}
