import { Anchor, List } from '@mantine/core';
import { Link } from 'react-router';
import { PageTitle } from '../../../components/page-title.tsx';
import { paths } from '../../../config/paths.ts';

/** Spec §2.3: the admin actions list. */
const ACTIONS = [
  [paths.admin.appConfig, 'App config'],
  [paths.admin.conversationTypeCreate, 'Create conversation type'],
  [paths.admin.conversationTypeList, 'Conversation types'],
  [paths.conversationList, 'Conversations'],
  [paths.admin.messagingAccountList, 'Messaging accounts'],
  [paths.admin.permissionList, 'User messaging account permissions'],
  [paths.admin.pricing, 'Pricing calculator'],
  [paths.admin.webhookSimulator, 'Webhook simulation tool'],
  [paths.admin.unanswered, 'Unanswered conversations'],
] as const;

export default function AdminHelloPage() {
  return (
    <>
      <PageTitle>Admin</PageTitle>
      <List spacing="xs" aria-label="Admin actions">
        {ACTIONS.map(([to, label]) => (
          <List.Item key={to}>
            <Anchor component={Link} to={to}>
              {label}
            </Anchor>
          </List.Item>
        ))}
      </List>
    </>
  );
}
