import { Alert, Anchor, Button, Group, Loader, Stack, Table, Text, TextInput } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { PageTitle } from '../../../components/page-title.tsx';
import { paths } from '../../../config/paths.ts';
import { errorMessage } from '../../../lib/api-client.ts';
import { collectionsQuery, useCreateCollection } from '../api/knowledge.ts';
import { UnansweredQuestions } from '../components/unanswered-questions.tsx';
import { SimpleTable } from '../../../components/simple-table.tsx';

/** Issue 21: the knowledge collections, each attachable to conversation types. */
export default function KnowledgeListPage() {
  const query = useQuery(collectionsQuery());
  const create = useCreateCollection();
  const navigate = useNavigate();
  const [name, setName] = useState('');

  const onCreate = (event: React.FormEvent) => {
    event.preventDefault();
    create.mutate(name.trim(), { onSuccess: ({ id }) => navigate(paths.admin.knowledgeCollection(id)) });
  };

  return (
    <Stack>
      <PageTitle>Knowledge base</PageTitle>
      <Text c="dimmed" size="sm">
        The agent answers from the collections attached to a conversation type (Edit conversation type → Knowledge collections).
      </Text>
      <form onSubmit={onCreate} aria-label="New collection">
        <Group align="flex-end">
          <TextInput label="New collection" placeholder="Product facts" value={name} onChange={(e) => setName(e.currentTarget.value)} maxLength={200} />
          <Button type="submit" disabled={!name.trim()} loading={create.isPending}>
            Create collection
          </Button>
        </Group>
      </form>
      {query.isPending && <Loader aria-label="Loading collections" />}
      {query.isError && <Alert color="red">{errorMessage(query.error)}</Alert>}
      {query.data && query.data.length === 0 && <Text c="dimmed">No collections yet: create one, then add FAQ entries or documents.</Text>}
      {query.data && query.data.length > 0 && (
        <SimpleTable aria-label="Knowledge collections" striped columns={['Name', 'Id', 'Sources', 'Passages']}>
          {query.data.map((c) => (
            <Table.Tr key={c.id}>
              <Table.Td>
                <Anchor component={Link} to={paths.admin.knowledgeCollection(c.id)}>
                  {c.name}
                </Anchor>
              </Table.Td>
              <Table.Td>{c.id}</Table.Td>
              <Table.Td>{c.sources}</Table.Td>
              <Table.Td>{c.chunks}</Table.Td>
            </Table.Tr>
          ))}
        </SimpleTable>
      )}
      {query.data && <UnansweredQuestions collections={query.data} />}
    </Stack>
  );
}
