import { Alert, Anchor, Group, Loader } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link, useNavigate, useParams } from 'react-router';
import { PageTitle } from '../../../components/page-title.tsx';
import { paths } from '../../../config/paths.ts';
import { errorMessage } from '../../../lib/api-client.ts';
import { conversationTypeQuery, useSaveConversationType } from '../api/conversation-types.ts';
import { ConversationTypeForm, type ConversationTypeFormValues, toFormValues } from '../components/conversation-type-form.tsx';
import { PhasesTable } from '../components/phases-table.tsx';

/** Spec §2.6 create (/admin/conversation-type/create) and edit (/admin/conversation-type/{id}/edit). */
export default function ConversationTypeEditPage() {
  const { id } = useParams();
  const typeId = id ? Number(id) : null;
  const query = useQuery({ ...conversationTypeQuery(id ?? ''), enabled: typeId !== null });
  const saveType = useSaveConversationType();
  const navigate = useNavigate();

  const save = (values: ConversationTypeFormValues) =>
    saveType.mutate(
      {
        id: typeId ?? undefined,
        title: values.title,
        publicTitle: values.publicTitle,
        rolePrompt: values.rolePrompt,
        triggerConversationPrompt: values.triggerConversationPrompt,
        checkingPrompt: values.checkingPrompt,
        errorPrompt: values.errorPrompt,
        initialMessage: values.initialMessage,
        messagingAccountId: values.messagingAccountId ? Number(values.messagingAccountId) : null,
        isPublic: values.isPublic,
        knowledgeCollectionIds: values.knowledgeCollectionIds.map(Number),
      },
      {
        onSuccess: ({ conversationType }) =>
          navigate(paths.admin.conversationTypeEdit(conversationType.id), { replace: typeId === conversationType.id }),
      },
    );

  if (typeId === null) {
    return (
      <>
        <PageTitle>Create conversation type</PageTitle>
        <ConversationTypeForm initial={toFormValues()} onSubmit={save} saving={saveType.isPending} />
      </>
    );
  }

  return (
    <>
      <Group justify="space-between" align="flex-start">
        <PageTitle>{`Edit conversation type #${typeId}`}</PageTitle>
        <Group gap="md">
          <Anchor component={Link} to={paths.admin.conversationTypeConfig(typeId)}>
            Config
          </Anchor>
          <Anchor component={Link} to={paths.admin.conversationTypeTests(typeId)}>
            Tests and versions
          </Anchor>
          <Anchor component={Link} to={paths.admin.conversationTypeList}>
            All conversation types
          </Anchor>
        </Group>
      </Group>
      {query.isPending && <Loader aria-label="Loading conversation type" />}
      {query.isError && (
        <Alert color="red" title="Could not load this conversation type">
          {errorMessage(query.error)}
        </Alert>
      )}
      {query.data && (
        <>
          {/* keyed by id so navigating to a duplicate starts from the copy's values */}
          <ConversationTypeForm key={query.data.id} initial={toFormValues(query.data)} onSubmit={save} saving={saveType.isPending} />
          <PhasesTable key={`phases-${query.data.id}`} typeId={query.data.id} />
        </>
      )}
    </>
  );
}
