import { Alert, Anchor, Button, Card, Code, Group, Loader, Select, Stack, Text, Textarea, TextInput } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import type { AccountType } from '@sales-agent/shared/enums';
import { useState } from 'react';
import { Link } from 'react-router';
import { CHANNEL_LABELS, ChannelBadge } from '../../../components/channel-badge.tsx';
import { PageTitle } from '../../../components/page-title.tsx';
import { QueryState } from '../../../components/query-state.tsx';
import { paths } from '../../../config/paths.ts';
import { errorMessage } from '../../../lib/api-client.ts';
import {
  messagingAccountsQuery,
  type SimulationSent,
  useProspectConversation,
  useSimulateWebhook,
} from '../api/webhook-simulator.ts';
import { randomSenderId, SENDER_HINTS } from '../components/payloads.ts';

/** Instagram first: the spec's simulator is Instagram's (§2.11); the others are ours (issue #8). */
const CHANNEL_ORDER: readonly AccountType[] = ['INSTAGRAM', 'FACEBOOK', 'WHATSAPP', 'TWILIO', 'SMS_GATEWAY'];
const CHANNEL_OPTIONS = CHANNEL_ORDER.map((type) => ({ value: type, label: CHANNEL_LABELS[type] }));

/**
 * Spec §2.11 webhook simulator: a sender, a receiver (one of the messaging accounts) and a text make an
 * inbound message that goes through the real webhook pipeline. The prospect is marked simulated, so the
 * agent's reply is stored and shown but never sent (docs/channels.md). The button stays disabled until all
 * three are set (spec §5).
 */
export default function WebhookSimulatorPage() {
  const accounts = useQuery(messagingAccountsQuery());
  const [channel, setChannel] = useState<AccountType>('INSTAGRAM');
  const [senderId, setSenderId] = useState('');
  const [receiverId, setReceiverId] = useState<string | null>(null);
  const [text, setText] = useState('');
  const [profileName, setProfileName] = useState('');
  const [sent, setSent] = useState<SimulationSent | null>(null);
  const simulate = useSimulateWebhook((result) => {
    setSent(result);
    setText('');
  });
  const conversation = useProspectConversation(sent);

  const receivers = (accounts.data ?? []).filter((a) => a.type === channel);
  const receiver = receivers.find((a) => String(a.id) === receiverId) ?? null;
  const ready = senderId.trim() !== '' && receiver !== null && text.trim() !== '';
  const hint = SENDER_HINTS[channel];

  const onChannel = (value: string | null) => {
    if (!value || value === channel) return;
    setChannel(value as AccountType);
    // A receiver of another channel cannot receive this one's payload, nor a sender id keep its format.
    setReceiverId(null);
    setSenderId('');
  };

  const onSubmit = (e: React.FormEvent) => {
    e.preventDefault();
    if (!ready || simulate.isPending) return;
    simulate.mutate({ channel, account: receiver, senderId, text, profileName });
  };

  return (
    <Stack maw={720}>
      <PageTitle>Webhook simulation tool</PageTitle>
      <Text c="dimmed" size="sm">
        Sends an inbound message as if the prospect had written on the channel. It goes through the real webhook
        pipeline and the agent answers; replies to a simulated prospect are stored and shown in the conversation
        but never sent.
      </Text>
      <QueryState query={accounts} title="Messaging accounts">
        {() => (
          <Card withBorder component="form" onSubmit={onSubmit} aria-label="Simulate a webhook">
            <Stack>
              <Select
                label="Channel"
                data={CHANNEL_OPTIONS}
                value={channel}
                onChange={onChannel}
                allowDeselect={false}
                w={240}
              />
              <Group align="flex-end" gap="xs">
                <TextInput
                  label="Sender"
                  description={hint.description}
                  placeholder={hint.placeholder}
                  value={senderId}
                  onChange={(e) => setSenderId(e.currentTarget.value)}
                  maxLength={64}
                  style={{ flex: 1 }}
                  required
                />
                <Button variant="default" onClick={() => setSenderId(randomSenderId(channel))}>
                  New sender id
                </Button>
              </Group>
              {channel === 'WHATSAPP' && (
                <TextInput
                  label="Profile name"
                  description="The name WhatsApp gives the contact (optional)"
                  placeholder="Ada Lovelace"
                  value={profileName}
                  onChange={(e) => setProfileName(e.currentTarget.value)}
                  maxLength={200}
                />
              )}
              <Select
                label="Receiver"
                description={`The ${CHANNEL_LABELS[channel]} messaging account that receives the message`}
                placeholder={receivers.length ? 'Choose an account' : `No ${CHANNEL_LABELS[channel]} account yet`}
                data={receivers.map((a) => ({ value: String(a.id), label: `${a.pageName} (${a.pageId})` }))}
                value={receiverId}
                onChange={setReceiverId}
                disabled={receivers.length === 0}
                searchable
                required
              />
              {receivers.length === 0 && (
                <Text size="sm" c="dimmed">
                  Create a {CHANNEL_LABELS[channel]} account under{' '}
                  <Anchor component={Link} to={paths.admin.messagingAccountCreate}>
                    Messaging accounts
                  </Anchor>{' '}
                  first.
                </Text>
              )}
              {receiver && receiver.conversationTypeId === null && (
                <Alert color="yellow" variant="light">
                  This account has no conversation type: the message is stored at phase -2 and the agent does not
                  answer (a person must).
                </Alert>
              )}
              <Textarea
                label="Message text"
                value={text}
                onChange={(e) => setText(e.currentTarget.value)}
                autosize
                minRows={3}
                maxRows={9}
                required
              />
              <Group>
                <Button type="submit" disabled={!ready} loading={simulate.isPending}>
                  Simulate webhook
                </Button>
              </Group>
            </Stack>
          </Card>
        )}
      </QueryState>
      {sent && <SimulationResult sent={sent} conversation={conversation} />}
    </Stack>
  );
}

/** The last message sent, and a link to its conversation once the inbound job has stored it. */
function SimulationResult(props: { sent: SimulationSent; conversation: ReturnType<typeof useProspectConversation> }) {
  const { sent, conversation } = props;
  return (
    <Card withBorder aria-label="Last simulation">
      <Stack gap="xs">
        <Group gap="xs">
          <Text fw={600}>Last simulated message</Text>
          <ChannelBadge type={sent.channel} />
          <Text size="sm" c="dimmed">
            from {sent.senderId}
          </Text>
        </Group>
        {conversation.data ? (
          <Text size="sm">
            <Anchor component={Link} to={paths.conversation(conversation.data.uuid)}>
              Open the conversation
            </Anchor>{' '}
            to watch the agent&apos;s reply.
          </Text>
        ) : conversation.isError ? (
          <Text size="sm" c="red">
            The conversation could not be looked up: {errorMessage(conversation.error)}
          </Text>
        ) : conversation.isLooking ? (
          <Group gap="xs" role="status">
            <Loader size="xs" />
            <Text size="sm" c="dimmed">
              Waiting for the conversation to be stored…
            </Text>
          </Group>
        ) : (
          <Text size="sm" c="dimmed">
            No conversation yet: the message may still be queued. Look in the{' '}
            <Anchor component={Link} to={paths.conversationList}>
              conversation list
            </Anchor>
            .
          </Text>
        )}
        <Text size="xs" c="dimmed">
          POST {sent.url}
        </Text>
        <Code block style={{ maxHeight: 260, overflow: 'auto' }}>
          {JSON.stringify(sent.body, null, 2)}
        </Code>
      </Stack>
    </Card>
  );
}
