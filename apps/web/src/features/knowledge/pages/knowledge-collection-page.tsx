import { Alert, Anchor, Badge, Button, Card, FileButton, Group, Loader, Select, Stack, Table, Text, Textarea, TextInput, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import type { KnowledgeSource } from '@sales-agent/shared/schemas/knowledge';
import { PageTitle } from '../../../components/page-title.tsx';
import { paths } from '../../../config/paths.ts';
import { errorMessage } from '../../../lib/api-client.ts';
import { confirmAction } from '../../../lib/confirm.tsx';
import { toastSuccess } from '../../../lib/toast.ts';
import {
  collectionsQuery,
  sourcesQuery,
  useAddSource,
  useDeleteSource,
  useImportFaqCsv,
  useRefreshSource,
  useAskKnowledge,
  useSearchKnowledge,
  useUploadDocument,
} from '../api/knowledge.ts';
import { conversationTypesQuery } from '../../conversation-types/api/conversation-types.ts';
import { SimpleTable } from '../../../components/simple-table.tsx';

const STATUS_COLORS: Record<KnowledgeSource['status'], string> = { queued: 'gray', processing: 'blue', ready: 'green', failed: 'red' };
const STATUS_LABELS: Record<KnowledgeSource['status'], string> = { queued: 'Queued', processing: 'Processing', ready: 'Ready', failed: 'Failed' };
const TYPE_LABELS: Record<KnowledgeSource['type'], string> = { faq: 'FAQ', document: 'Document', website: 'Website' };

/** Issue 21: one collection's sources, adding FAQ entries and documents, and the test box. */
export default function KnowledgeCollectionPage() {
  const id = Number(useParams().id);
  const collection = useQuery(collectionsQuery()).data?.find((c) => c.id === id);
  const sources = useQuery(sourcesQuery(id));
  return (
    <Stack>
      <Anchor component={Link} to={paths.admin.knowledge} size="sm">
        ← Knowledge base
      </Anchor>
      <PageTitle>{collection ? `Knowledge: ${collection.name}` : 'Knowledge collection'}</PageTitle>
      <Group align="stretch" grow>
        <FaqForm collectionId={id} />
        <UploadCard collectionId={id} />
        <WebsiteForm collectionId={id} />
      </Group>
      <Title order={3}>Sources</Title>
      {sources.isPending && <Loader aria-label="Loading sources" />}
      {sources.isError && <Alert color="red">{errorMessage(sources.error)}</Alert>}
      {sources.data && <SourcesTable collectionId={id} sources={sources.data} />}
      <TestBox collectionId={id} />
    </Stack>
  );
}

function FaqForm({ collectionId }: { collectionId: number }) {
  const add = useAddSource(collectionId);
  const [question, setQuestion] = useState('');
  const [answer, setAnswer] = useState('');
  const onSubmit = (event: React.FormEvent) => {
    event.preventDefault();
    add.mutate({ type: 'faq', question, answer }, { onSuccess: () => (setQuestion(''), setAnswer('')) });
  };
  return (
    <Card withBorder component="form" onSubmit={onSubmit} aria-label="Add FAQ entry">
      <Title order={4}>Add FAQ entry</Title>
      <TextInput label="Question" value={question} onChange={(e) => setQuestion(e.currentTarget.value)} maxLength={2000} />
      <Textarea label="Answer" value={answer} onChange={(e) => setAnswer(e.currentTarget.value)} autosize minRows={2} />
      <Button type="submit" mt="sm" disabled={!question.trim() || !answer.trim()} loading={add.isPending}>
        Add entry
      </Button>
    </Card>
  );
}

const REFRESH_OPTIONS = [
  { value: 'off', label: 'No re-crawl' },
  { value: 'daily', label: 'Re-crawl daily' },
  { value: 'weekly', label: 'Re-crawl weekly' },
  { value: 'monthly', label: 'Re-crawl monthly' },
];

/** A website: crawled within its own origin (sitemap, links, robots.txt), re-crawled on a schedule. */
function WebsiteForm({ collectionId }: { collectionId: number }) {
  const add = useAddSource(collectionId);
  const [url, setUrl] = useState('');
  const [refresh, setRefresh] = useState<string | null>('weekly');
  const onSubmit = (event: React.FormEvent) => {
    event.preventDefault();
    add.mutate(
      { type: 'website', url: url.trim(), refresh: (refresh ?? 'off') as 'off' | 'daily' | 'weekly' | 'monthly' },
      { onSuccess: () => setUrl('') },
    );
  };
  return (
    <Card withBorder component="form" onSubmit={onSubmit} aria-label="Add a website">
      <Title order={4}>Add a website</Title>
      <TextInput label="Start URL" placeholder="https://www.example.com/" value={url} onChange={(e) => setUrl(e.currentTarget.value)} maxLength={2000} />
      <Select label="Re-crawl" data={REFRESH_OPTIONS} value={refresh} onChange={setRefresh} allowDeselect={false} />
      <Button type="submit" mt="sm" disabled={!/^https?:\/\/\S+$/.test(url.trim())} loading={add.isPending}>
        Crawl website
      </Button>
    </Card>
  );
}

function UploadCard({ collectionId }: { collectionId: number }) {
  const upload = useUploadDocument(collectionId);
  const importFaq = useImportFaqCsv(collectionId);
  return (
    <Card withBorder>
      <Title order={4}>Upload a document</Title>
      <Text size="sm" c="dimmed">
        PDF, DOCX, Markdown, text, HTML or CSV (each CSV row is one fact), up to 20 MB.
      </Text>
      <Group mt="sm">
        <FileButton onChange={(file) => file && upload.mutate(file)} accept=".pdf,.docx,.md,.markdown,.txt,.html,.htm,.csv">
          {(props) => (
            <Button {...props} variant="light" loading={upload.isPending}>
              Choose file
            </Button>
          )}
        </FileButton>
        <FileButton
          onChange={(file) =>
            file &&
            importFaq.mutate(file, {
              onSuccess: ({ created, skipped }) =>
                toastSuccess(`${created} FAQ ${created === 1 ? 'entry' : 'entries'} imported${skipped ? `; ${skipped} incomplete rows skipped` : ''}.`),
            })
          }
          accept=".csv"
        >
          {(props) => (
            <Button {...props} variant="subtle" loading={importFaq.isPending}>
              Import FAQ CSV (question, answer)
            </Button>
          )}
        </FileButton>
      </Group>
    </Card>
  );
}

function SourcesTable({ collectionId, sources }: { collectionId: number; sources: KnowledgeSource[] }) {
  const refresh = useRefreshSource(collectionId);
  const remove = useDeleteSource(collectionId);
  if (sources.length === 0) return <Text c="dimmed">No sources yet: add an FAQ entry or upload a document.</Text>;
  const onDelete = async (source: KnowledgeSource) => {
    if (await confirmAction(`Delete "${source.title}" and its passages?`, { confirmLabel: 'Delete' })) remove.mutate(source.id);
  };
  return (
    <SimpleTable aria-label="Knowledge sources" striped columns={['Source', 'Type', 'Status', 'Passages', 'Last refresh', 'Actions']}>
      {sources.map((s) => (
        <Table.Tr key={s.id}>
          <Table.Td>
            {s.title}
            {s.type === 'website' && s.items > 0 && (
              <Text size="xs" c="dimmed">
                {s.items} {s.items === 1 ? 'page' : 'pages'}
                {s.status === 'processing' ? ' read so far' : ''}
                {s.refresh !== 'off' ? ` · re-crawled ${s.refresh}` : ''}
              </Text>
            )}
          </Table.Td>
          <Table.Td>{TYPE_LABELS[s.type]}</Table.Td>
          <Table.Td>
            <Badge color={STATUS_COLORS[s.status]} variant="light">
              {STATUS_LABELS[s.status]}
            </Badge>
            {s.error && (
              <Text size="xs" c="red">
                {s.error}
              </Text>
            )}
          </Table.Td>
          <Table.Td>{s.chunks}</Table.Td>
          <Table.Td>{s.refreshedAt ? new Date(s.refreshedAt).toLocaleString() : '—'}</Table.Td>
          <Table.Td>
            <Group gap="xs">
              <Button size="xs" variant="subtle" onClick={() => refresh.mutate(s.id)}>
                Refresh
              </Button>
              <Button size="xs" variant="subtle" color="red" onClick={() => void onDelete(s)}>
                Delete
              </Button>
            </Group>
          </Table.Td>
        </Table.Tr>
      ))}
    </SimpleTable>
  );
}

/**
 * Ask a question: "Search" shows the passages the agent would get, best first, with their scores; "Ask the
 * agent" shows the answer the chosen type's agent would give from this collection (the configured LLM, or the
 * offline demo agent), through the same knowledge check as a conversation.
 */
function TestBox({ collectionId }: { collectionId: number }) {
  const search = useSearchKnowledge(collectionId);
  const ask = useAskKnowledge(collectionId);
  const types = useQuery(conversationTypesQuery());
  const [question, setQuestion] = useState('');
  const [typeId, setTypeId] = useState<string | null>(null);
  const typeOptions = (types.data ?? []).map((t) => ({ value: String(t.id), label: t.title || `Type ${t.id}` }));
  const chosenType = typeId ?? typeOptions[0]?.value ?? null;
  const onSubmit = (event: React.FormEvent) => {
    event.preventDefault();
    search.mutate(question);
  };
  const onAsk = () => {
    if (!chosenType) return;
    search.mutate(question);
    ask.mutate({ query: question, conversationTypeId: Number(chosenType) });
  };
  const results = search.data?.results;
  const answer = ask.data;
  return (
    <Card withBorder component="form" onSubmit={onSubmit} aria-label="Test the knowledge base">
      <Title order={4}>Try a question</Title>
      <Group align="flex-end">
        <TextInput label="Question" style={{ flex: 1 }} value={question} onChange={(e) => setQuestion(e.currentTarget.value)} maxLength={2000} />
        <Select
          label="Agent of type"
          data={typeOptions}
          value={chosenType}
          onChange={setTypeId}
          allowDeselect={false}
          placeholder={types.isPending ? 'Loading types…' : 'No conversation types'}
        />
        <Button type="submit" variant="light" disabled={!question.trim()} loading={search.isPending}>
          Search
        </Button>
        <Button onClick={onAsk} disabled={!question.trim() || !chosenType} loading={ask.isPending}>
          Ask the agent
        </Button>
      </Group>
      {answer && (
        <Card withBorder mt="sm" padding="sm" aria-label="Agent's answer">
          <Group gap="xs">
            <Text fw={600} size="sm">
              The agent would answer
            </Text>
            {answer.demo && <Badge variant="light" color="gray">Demo agent (offline)</Badge>}
            {answer.unknown && <Badge variant="light" color="orange">Not in the knowledge base</Badge>}
            {answer.needsHuman && <Badge variant="light" color="red">Hands over to a person</Badge>}
          </Group>
          <Text size="sm" style={{ whiteSpace: 'pre-wrap' }}>
            {answer.reply}
          </Text>
        </Card>
      )}
      {results && results.length === 0 && (
        <Text mt="sm" c="dimmed">
          Nothing in this collection matches: the agent would say it will find out.
        </Text>
      )}
      {results && results.length > 0 && (
        <Stack mt="sm" gap="xs" aria-label="Retrieved passages">
          {results.map((r, i) => (
            <Card key={i} withBorder padding="xs">
              <Group justify="space-between">
                <Text fw={600} size="sm">
                  {r.title ?? `Source ${r.sourceId}`}
                </Text>
                <Badge variant="light">score {r.score.toFixed(3)}</Badge>
              </Group>
              <Text size="sm" style={{ whiteSpace: 'pre-wrap' }}>
                {r.text}
              </Text>
            </Card>
          ))}
        </Stack>
      )}
    </Card>
  );
}
