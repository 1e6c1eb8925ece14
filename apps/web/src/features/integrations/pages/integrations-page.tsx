import { Alert, Badge, Button, Card, Checkbox, Group, SimpleGrid, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { API_KEY_SCOPE_LABELS, API_KEY_SCOPES, WEBHOOK_EVENTS } from '@sales-agent/shared/schemas/integrations';
import { PageTitle } from '../../../components/page-title.tsx';
import { ShownOnce } from '../../../components/shown-once.tsx';
import { SimpleTable } from '../../../components/simple-table.tsx';
import { confirmAction } from '../../../lib/confirm.tsx';
import {
  apiKeysQuery,
  deliveriesQuery,
  useCreateApiKey,
  useCreateWebhook,
  useDeleteWebhook,
  useResendDelivery,
  useRevokeApiKey,
  useSendTestEvent,
  useSetWebhookEnabled,
  webhooksQuery,
  type WebhookEndpointView,
} from '../api/integrations.ts';

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : '—');

/** Integrations (issue 27, docs/api.md): API keys for Zapier, Make, n8n and scripts, and outbound webhooks. */
export default function IntegrationsPage() {
  return (
    <>
      <PageTitle>Integrations</PageTitle>
      <Text size="sm" c="dimmed" mb="md">
        Connect the agent to your other tools. The API and the events are described in docs/api.md and at /api/docs.
      </Text>
      <ApiKeysPanel />
      <WebhooksPanel />
    </>
  );
}

function ApiKeysPanel() {
  const keys = useQuery(apiKeysQuery());
  const create = useCreateApiKey();
  const revoke = useRevokeApiKey();
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<string[]>(['conversations:read']);
  const [shown, setShown] = useState<{ name: string; key: string } | null>(null);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!name.trim() || scopes.length === 0) return;
    create.mutate(
      { name: name.trim(), scopes: scopes as never },
      {
        onSuccess: (created) => {
          setShown({ name: created.name, key: created.key });
          setName('');
        },
      },
    );
  };

  return (
    <Card withBorder p="md" component="section" aria-labelledby="api-keys-title">
      <Title order={2} size="h4" id="api-keys-title" mb="xs">
        API keys
      </Title>
      <Text size="sm" c="dimmed" mb="sm">
        Send a key as <code>Authorization: Bearer &lt;key&gt;</code>. It acts as you, narrowed to its scopes.
      </Text>
      <form onSubmit={submit} noValidate aria-label="Create an API key">
        <Stack gap="sm">
          <TextInput label="Key name" placeholder="Zapier" value={name} onChange={(e) => setName(e.currentTarget.value)} required maxLength={100} />
          <Checkbox.Group label="Scopes" value={scopes} onChange={setScopes}>
            <SimpleGrid cols={{ base: 1, sm: 2 }} mt="xs" spacing="xs">
              {API_KEY_SCOPES.map((scope) => (
                <Checkbox key={scope} value={scope} label={`${scope} — ${API_KEY_SCOPE_LABELS[scope]}`} />
              ))}
            </SimpleGrid>
          </Checkbox.Group>
          <Group>
            <Button type="submit" loading={create.isPending} disabled={!name.trim() || scopes.length === 0}>
              Create key
            </Button>
          </Group>
        </Stack>
      </form>
      {shown ? (
        <ShownOnce
          title={`Key "${shown.name}" created: copy it now, it is shown only once`}
          label="New API key"
          value={shown.key}
          testId="api-key-created"
          onDone={() => setShown(null)}
        />
      ) : null}
      {keys.data && keys.data.length > 0 ? (
        <SimpleTable minWidth={640} mt="md" aria-label="API keys" columns={['Name', 'Key', 'Scopes', 'Created', 'Last used', 'Revoke']}>
          {keys.data.map((key) => (
            <Table.Tr key={key.id}>
              <Table.Td>{key.name}</Table.Td>
              <Table.Td>
                <code>{key.prefix}…</code>
              </Table.Td>
              <Table.Td>{key.scopes.join(', ')}</Table.Td>
              <Table.Td>
                {when(key.createdAt)}
                {key.createdBy ? <Text size="xs">by {key.createdBy.email}</Text> : null}
              </Table.Td>
              <Table.Td>{when(key.lastUsedAt)}</Table.Td>
              <Table.Td>
                {key.revokedAt ? (
                  <Badge color="gray" variant="light">Revoked</Badge>
                ) : (
                  <Button
                    size="xs"
                    color="red"
                    variant="light"
                    aria-label={`Revoke ${key.name}`}
                    onClick={async () => {
                      if (await confirmAction(`Revoke the key "${key.name}"? Anything using it stops working at once.`, { confirmLabel: 'Revoke' })) revoke.mutate(key.id);
                    }}
                  >
                    Revoke
                  </Button>
                )}
              </Table.Td>
            </Table.Tr>
          ))}
        </SimpleTable>
      ) : null}
    </Card>
  );
}

function WebhooksPanel() {
  const endpoints = useQuery(webhooksQuery());
  const create = useCreateWebhook();
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<string[]>([...WEBHOOK_EVENTS]);
  const [secret, setSecret] = useState<{ url: string; secret: string } | null>(null);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!url.trim() || events.length === 0) return;
    create.mutate(
      { url: url.trim(), events: events as never },
      {
        onSuccess: (created) => {
          setSecret({ url: created.url, secret: created.secret });
          setUrl('');
        },
      },
    );
  };

  return (
    <Card withBorder mt="xl" p="md" component="section" aria-labelledby="webhooks-title">
      <Title order={2} size="h4" id="webhooks-title" mb="xs">
        Webhooks
      </Title>
      <Text size="sm" c="dimmed" mb="sm">
        Each event is POSTed as JSON, signed with the endpoint&apos;s secret (X-Webhook-Signature), in order per conversation, retried for a day.
      </Text>
      <form onSubmit={submit} noValidate aria-label="Subscribe an endpoint">
        <Stack gap="sm">
          <TextInput label="Endpoint URL" placeholder="https://hooks.zapier.com/…" value={url} onChange={(e) => setUrl(e.currentTarget.value)} required type="url" />
          <Checkbox.Group label="Events" value={events} onChange={setEvents}>
            <SimpleGrid cols={{ base: 1, sm: 2, md: 4 }} mt="xs" spacing="xs">
              {WEBHOOK_EVENTS.map((type) => (
                <Checkbox key={type} value={type} label={type} />
              ))}
            </SimpleGrid>
          </Checkbox.Group>
          <Group>
            <Button type="submit" loading={create.isPending} disabled={!url.trim() || events.length === 0}>
              Subscribe
            </Button>
          </Group>
        </Stack>
      </form>
      {secret ? (
        <ShownOnce
          title="Signing secret: copy it now, it is shown only once"
          label="Signing secret"
          value={secret.secret}
          testId="webhook-created"
          onDone={() => setSecret(null)}
        >
          <Text size="sm">For {secret.url}</Text>
        </ShownOnce>
      ) : null}
      <Stack mt="md" gap="md">
        {endpoints.data?.map((endpoint) => <EndpointCard key={endpoint.id} endpoint={endpoint} />)}
      </Stack>
    </Card>
  );
}

function EndpointCard({ endpoint }: { endpoint: WebhookEndpointView }) {
  const deliveries = useQuery(deliveriesQuery(endpoint.id));
  const setEnabled = useSetWebhookEnabled();
  const remove = useDeleteWebhook();
  const test = useSendTestEvent();
  const resend = useResendDelivery();
  return (
    <Card withBorder p="sm" component="article" aria-label={`Endpoint ${endpoint.url}`}>
      <Group justify="space-between" wrap="wrap">
        <Stack gap={2}>
          <Text fw={600} style={{ wordBreak: 'break-all' }}>
            {endpoint.url}
          </Text>
          <Text size="xs" c="dimmed">
            {endpoint.events.join(', ')}
          </Text>
        </Stack>
        <Group gap="xs">
          <Badge color={endpoint.enabled ? 'green' : 'gray'} variant="light">{endpoint.enabled ? 'Enabled' : 'Disabled'}</Badge>
          <Button size="xs" variant="light" onClick={() => test.mutate(endpoint.id)} disabled={!endpoint.enabled}>
            Send test event
          </Button>
          <Button size="xs" variant="light" onClick={() => setEnabled.mutate({ id: endpoint.id, enabled: !endpoint.enabled })}>
            {endpoint.enabled ? 'Disable' : 'Enable'}
          </Button>
          <Button
            size="xs"
            color="red"
            variant="light"
            onClick={async () => {
              if (await confirmAction(`Delete the endpoint ${endpoint.url} and its deliveries?`, { confirmLabel: 'Delete' })) remove.mutate(endpoint.id);
            }}
          >
            Delete
          </Button>
        </Group>
      </Group>
      {endpoint.disabledReason ? (
        <Alert color="orange" mt="sm" title="This endpoint is disabled" styles={{ title: { color: 'var(--mantine-color-text)' } }}>
          {endpoint.disabledReason} Fix the receiver, then enable it: the deliveries that waited are sent in order.
        </Alert>
      ) : null}
      {deliveries.data && deliveries.data.length > 0 ? (
        <SimpleTable
          minWidth={640}
          mt="sm"
          aria-label={`Recent deliveries to ${endpoint.url}`}
          fz="sm"
          columns={['Event', 'Status', 'Response', 'Attempts', 'Last attempt', 'Resend']}
        >
          {deliveries.data.map((d) => (
            <Table.Tr key={d.id}>
              <Table.Td>
                {d.type}
                <Text size="xs" c="dimmed">
                  {d.eventId}
                </Text>
              </Table.Td>
              <Table.Td>
                <Badge color={d.status === 'DELIVERED' ? 'green' : d.status === 'FAILED' ? 'red' : 'yellow'} variant="light">
                  {d.status}
                </Badge>
              </Table.Td>
              <Table.Td>
                {d.responseCode ?? '—'}
                {d.responseMs !== null ? ` in ${d.responseMs} ms` : ''}
                {d.lastError ? (
                  <Text size="xs" c="dimmed">
                    {d.lastError}
                  </Text>
                ) : null}
              </Table.Td>
              <Table.Td>{d.attempts}</Table.Td>
              <Table.Td>{when(d.lastAttemptAt)}</Table.Td>
              <Table.Td>
                <Button size="xs" variant="subtle" aria-label={`Resend ${d.type} ${d.eventId}`} onClick={() => resend.mutate({ id: endpoint.id, deliveryId: d.id })}>
                  Resend
                </Button>
              </Table.Td>
            </Table.Tr>
          ))}
        </SimpleTable>
      ) : (
        <Text size="sm" c="dimmed" mt="sm">
          No deliveries yet.
        </Text>
      )}
    </Card>
  );
}
