import { Alert, Anchor, Badge, Button, Card, Group, Loader, Select, Stack, Text, Textarea, TextInput, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import type { KnowledgeCollection, KnowledgeQuestionGroup } from '@sales-agent/shared/schemas/knowledge';
import { paths } from '../../../config/paths.ts';
import { errorMessage } from '../../../lib/api-client.ts';
import { questionsQuery, useAnswerQuestion, useDismissQuestion } from '../api/knowledge.ts';

/**
 * Issue 21 item 4: the questions the agent could not answer from the knowledge, grouped and most asked first,
 * each with its conversations; "Add as FAQ" turns one into an FAQ entry of a collection.
 */
export function UnansweredQuestions({ collections }: { collections: KnowledgeCollection[] }) {
  const query = useQuery(questionsQuery());
  return (
    <Stack gap="xs" aria-label="Unanswered questions" component="section">
      <Title order={3}>Unanswered questions</Title>
      <Text c="dimmed" size="sm">
        Questions the agent said it would find out about, because the knowledge base did not answer them.
      </Text>
      {query.isPending && <Loader aria-label="Loading questions" />}
      {query.isError && <Alert color="red">{errorMessage(query.error)}</Alert>}
      {query.data && query.data.groups.length === 0 && <Text c="dimmed">No unanswered questions.</Text>}
      {query.data?.groups.map((group) => <QuestionCard key={group.key} group={group} collections={collections} />)}
    </Stack>
  );
}

function QuestionCard({ group, collections }: { group: KnowledgeQuestionGroup; collections: KnowledgeCollection[] }) {
  const [open, setOpen] = useState(false);
  const dismiss = useDismissQuestion();
  return (
    <Card withBorder padding="sm" aria-label={`Question: ${group.question}`}>
      <Group justify="space-between" align="flex-start">
        <Stack gap={4}>
          <Text fw={600}>{group.question}</Text>
          <Group gap="xs">
            <Badge variant="light">asked {group.count}×</Badge>
            <Text size="xs" c="dimmed">
              last {new Date(group.lastAskedAt).toLocaleString()}
            </Text>
            {group.conversations.slice(0, 5).map((c, i) => (
              <Anchor key={c.uuid} component={Link} to={paths.conversation(c.uuid)} size="xs">
                conversation {i + 1}
                {c.typeTitle ? ` (${c.typeTitle})` : ''}
              </Anchor>
            ))}
          </Group>
        </Stack>
        <Group gap="xs">
          <Button size="xs" variant="light" onClick={() => setOpen((v) => !v)} disabled={collections.length === 0}>
            Add as FAQ
          </Button>
          <Button size="xs" variant="subtle" color="gray" loading={dismiss.isPending} onClick={() => dismiss.mutate(group.key)}>
            Dismiss
          </Button>
        </Group>
      </Group>
      {open && <AnswerForm group={group} collections={collections} onDone={() => setOpen(false)} />}
    </Card>
  );
}

function AnswerForm({ group, collections, onDone }: { group: KnowledgeQuestionGroup; collections: KnowledgeCollection[]; onDone(): void }) {
  const answerQuestion = useAnswerQuestion();
  const [collectionId, setCollectionId] = useState<string | null>(collections[0] ? String(collections[0].id) : null);
  const [question, setQuestion] = useState(group.question);
  const [answer, setAnswer] = useState('');
  const onSubmit = (event: React.FormEvent) => {
    event.preventDefault();
    if (!collectionId) return;
    answerQuestion.mutate({ key: group.key, collectionId: Number(collectionId), question, answer }, { onSuccess: onDone });
  };
  return (
    <Stack component="form" onSubmit={onSubmit} aria-label="Add as FAQ entry" gap="xs" mt="sm">
      <Select
        label="Collection"
        data={collections.map((c) => ({ value: String(c.id), label: c.name }))}
        value={collectionId}
        onChange={setCollectionId}
        allowDeselect={false}
      />
      <TextInput label="Question" value={question} onChange={(e) => setQuestion(e.currentTarget.value)} maxLength={2000} />
      <Textarea label="Answer" value={answer} onChange={(e) => setAnswer(e.currentTarget.value)} autosize minRows={2} />
      <Group>
        <Button type="submit" size="xs" disabled={!collectionId || !question.trim() || !answer.trim()} loading={answerQuestion.isPending}>
          Save FAQ entry
        </Button>
      </Group>
    </Stack>
  );
}
