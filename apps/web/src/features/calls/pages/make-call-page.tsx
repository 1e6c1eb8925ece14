import { Alert, Button, Card, Checkbox, Loader, Select, Stack, Text, TextInput } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { TRUNCATE } from '@sales-agent/shared/limits';
import { E164_MESSAGE, isE164 } from '@sales-agent/shared/schemas/call';
import { truncate } from '@sales-agent/shared/truncate';
import { type FormEvent, useEffect, useState } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { PageTitle } from '../../../components/page-title.tsx';
import { paths } from '../../../config/paths.ts';
import { errorMessage } from '../../../lib/api-client.ts';
import { conversationTypeOptionsQuery } from '../../conversations/api/conversations.ts';
import { usePlaceCall } from '../api/calls.ts';

/**
 * Spec §2.5 Make a Call (ADMIN): phone, optional contact id, conversation type (preselected from
 * ?conversationType), Realtime API on by default; Call stays disabled until phone and type are set (§5), then
 * the live conversation opens view-only.
 */
export default function MakeCallPage() {
  const [searchParams] = useSearchParams();
  const types = useQuery(conversationTypeOptionsQuery());
  const [phone, setPhone] = useState('');
  const [phoneTouched, setPhoneTouched] = useState(false);
  const [contactId, setContactId] = useState('');
  const [typeId, setTypeId] = useState<string | null>(searchParams.get('conversationType'));
  const [realtime, setRealtime] = useState(true);
  const place = usePlaceCall();
  const calling = place.isPending;
  const navigate = useNavigate();

  // A preselected id that is not a known type is dropped: the admin picks one.
  useEffect(() => {
    if (types.data && typeId && !types.data.some((t) => String(t.id) === typeId)) setTypeId(null);
  }, [types.data, typeId]);

  const trimmedPhone = phone.trim();
  const canCall = trimmedPhone !== '' && typeId !== null && !calling;
  const phoneError = phoneTouched && trimmedPhone !== '' && !isE164(trimmedPhone) ? E164_MESSAGE : null;

  const call = (event: FormEvent) => {
    event.preventDefault();
    if (!canCall) return;
    place.mutate(
      { phone: trimmedPhone, body: { conversationTypeId: Number(typeId), contactId: contactId.trim() || null, useRealtimeApi: realtime } },
      { onSuccess: ({ uuid }) => navigate(paths.conversation(uuid, true)) },
    );
  };

  return (
    <Stack maw={640}>
      <PageTitle>Make a Call</PageTitle>
      <Card withBorder>
        <form onSubmit={call} noValidate>
          <Stack>
            <TextInput
              label="Phone number"
              placeholder="+14155550123"
              description="International format: a plus, the country code and the number."
              required
              type="tel"
              autoComplete="tel"
              value={phone}
              onChange={(e) => setPhone(e.currentTarget.value)}
              onBlur={() => setPhoneTouched(true)}
              error={phoneError}
            />
            <TextInput
              label="Contact id"
              description="Optional: the CRM contact this call is for."
              value={contactId}
              onChange={(e) => setContactId(e.currentTarget.value)}
            />
            {types.isPending ? (
              <Loader aria-label="Loading conversation types" />
            ) : types.isError ? (
              <Alert color="red">{errorMessage(types.error)}</Alert>
            ) : types.data.length === 0 ? (
              <Text c="dimmed">No conversation types yet. Create one under Admin → Create Conversation Type.</Text>
            ) : (
              <Select
                label="Conversation type"
                placeholder="Choose a conversation type"
                required
                data={types.data.map((t) => ({ value: String(t.id), label: truncate(t.label, TRUNCATE.typeSelectLabel) }))}
                value={typeId}
                onChange={setTypeId}
                allowDeselect={false}
                searchable
              />
            )}
            <Checkbox
              label="Realtime API"
              description="The realtime voice agent. Off: speech recognition, the chat agent and text to speech."
              checked={realtime}
              onChange={(e) => setRealtime(e.currentTarget.checked)}
            />
            {/* The refusal stays on the form until the next try (issue 24), not only a passing toast. */}
            {place.isError && (
              <Alert color="red" title="The call was not placed" role="alert" data-testid="call-error">
                {errorMessage(place.error)}
              </Alert>
            )}
            <Button type="submit" loading={calling} disabled={!canCall}>
              Call
            </Button>
          </Stack>
        </form>
      </Card>
    </Stack>
  );
}
