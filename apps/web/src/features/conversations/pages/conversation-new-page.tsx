import { Alert, Button, Card, Loader, Select, Stack, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { TRUNCATE } from '@sales-agent/shared/limits';
import { truncate } from '@sales-agent/shared/truncate';
import { useEffect, useState } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { PageTitle } from '../../../components/page-title.tsx';
import { paths } from '../../../config/paths.ts';
import { errorMessage } from '../../../lib/api-client.ts';
import { toastError } from '../../../lib/toast.ts';
import { conversationTypeOptionsQuery, startConversation } from '../api/conversations.ts';

/** Spec §2.2 "/" and "/conversation/new": pick a type (preselected from ?conversationType), then start. */
export default function ConversationNewPage() {
  const [searchParams] = useSearchParams();
  const allTypes = useQuery(conversationTypeOptionsQuery());
  // The start page offers public types only (issue 12): the server lists only those to visitors and users; an
  // ADMIN gets every type, so private ones are left out here too (they are started from their own link).
  const preselected = searchParams.get('conversationType');
  const types = {
    ...allTypes,
    data: allTypes.data?.filter((t) => t.isPublic !== false || String(t.id) === preselected),
  } as typeof allTypes;
  const [typeId, setTypeId] = useState<string | null>(searchParams.get('conversationType'));
  const [starting, setStarting] = useState(false);
  const navigate = useNavigate();

  // A preselected id that is not in the list, or no choice at all, falls back to the first type.
  useEffect(() => {
    if (!types.data?.length) return;
    if (!typeId || !types.data.some((t) => String(t.id) === typeId)) setTypeId(String(types.data[0].id));
  }, [types.data, typeId]);

  const start = async () => {
    if (!typeId) return;
    setStarting(true);
    try {
      const { uuid } = await startConversation(Number(typeId));
      navigate(paths.conversation(uuid));
    } catch (err) {
      toastError(err);
      setStarting(false);
    }
  };

  return (
    <Stack maw={640}>
      <PageTitle>Start new conversation</PageTitle>
      <Card withBorder>
        {types.isPending ? (
          <Loader aria-label="Loading conversation types" />
        ) : types.isError ? (
          <Alert color="red">{errorMessage(types.error)}</Alert>
        ) : types.data.length === 0 ? (
          <Text c="dimmed">No conversation types yet. An administrator creates them under Admin → Create Conversation Type.</Text>
        ) : (
          <Stack>
            <Select
              label="Conversation type"
              data={types.data.map((t) => ({ value: String(t.id), label: truncate(t.label, TRUNCATE.typeSelectLabel) }))}
              value={typeId}
              onChange={setTypeId}
              allowDeselect={false}
              searchable
            />
            <Button onClick={start} loading={starting} disabled={!typeId}>
              Start new conversation
            </Button>
          </Stack>
        )}
      </Card>
    </Stack>
  );
}
