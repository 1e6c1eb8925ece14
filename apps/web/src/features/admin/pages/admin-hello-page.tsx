import { Alert, Anchor, Box, Card, Group, SimpleGrid, Text, ThemeIcon } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import {
  IconAlertTriangle,
  IconSpeakerphone,
  IconBooks,
  IconChartFunnel,
  IconCalculator,
  IconFilePencil,
  IconHandStop,
  IconKey,
  IconList,
  IconMessages,
  IconPlus,
  IconPlugConnected,
  IconApi,
  IconPhoneCall,
  IconUsers,
  IconWebhook,
  type Icon,
} from '@tabler/icons-react';
import { Link } from 'react-router';
import { PageTitle } from '../../../components/page-title.tsx';
import { paths } from '../../../config/paths.ts';
import { api } from '../../../lib/api-client.ts';
import { appConfigKeys } from '../api/app-config.ts';

/** Spec §2.3: the admin actions, in the spec's order, each with a line saying what it is for. */
const ACTIONS: ReadonlyArray<{ to: string; label: string; text: string; icon: Icon }> = [
  { to: paths.admin.appConfig, label: 'App config', text: 'Texts of the register and onboarding pages and the support message.', icon: IconFilePencil },
  { to: paths.admin.conversationTypeCreate, label: 'Create conversation type', text: 'A new playbook: its prompt, phases and the channel it answers on.', icon: IconPlus },
  { to: paths.admin.conversationTypeList, label: 'Conversation types', text: 'Edit, configure, duplicate or delete the playbooks the agent follows.', icon: IconList },
  { to: paths.conversationList, label: 'Conversations', text: 'Every conversation with prospects: read, reply, rate and filter.', icon: IconMessages },
  { to: paths.admin.messagingAccountList, label: 'Messaging accounts', text: 'Instagram, Messenger, WhatsApp, SMS and phone accounts the agent speaks through.', icon: IconPlugConnected },
  { to: paths.admin.permissionList, label: 'User messaging account permissions', text: 'Which team members may see the conversations of which account.', icon: IconKey },
  { to: paths.admin.pricing, label: 'Pricing calculator', text: 'Estimate what conversations cost from message counts and model prices.', icon: IconCalculator },
  { to: paths.admin.webhookSimulator, label: 'Webhook simulation tool', text: 'Send a test message as if a prospect wrote on a channel, and see the reply.', icon: IconWebhook },
  { to: paths.admin.knowledge, label: 'Knowledge base', text: 'FAQ entries and documents the agent answers from, with a test box.', icon: IconBooks },
  { to: paths.admin.integrations, label: 'Integrations', text: 'API keys and webhooks for Zapier, Make, n8n and your own scripts.', icon: IconApi },
  { to: paths.analytics, label: 'Analytics', text: 'Funnel by phase and speed to first reply of each conversation type.', icon: IconChartFunnel },
  { to: paths.admin.campaigns, label: 'Campaigns', text: 'Call or message a list from a CSV, paced and in calling hours, with live progress.', icon: IconSpeakerphone },
  { to: paths.admin.call, label: 'Make a call', text: 'Have the agent phone a prospect from a Twilio account.', icon: IconPhoneCall },
  { to: paths.admin.team, label: 'Team', text: 'Invite teammates by email, change their roles, deactivate who left.', icon: IconUsers },
  { to: paths.admin.unanswered, label: 'Unanswered conversations', text: 'Messages the agent could not answer or deliver, to follow up by hand.', icon: IconAlertTriangle },
  { to: paths.admin.optOuts, label: 'Opt-outs and consents', text: 'Who asked not to be contacted and who cleared it; WhatsApp opt-ins, and their import from a CSV.', icon: IconHandStop },
];

export default function AdminHelloPage() {
  // Issue 19: without an LLM the agent answers only web chats and simulated prospects; say so up front.
  const health = useQuery({ queryKey: appConfigKeys.health(), queryFn: () => api.get<{ llm?: string }>('/api/health'), staleTime: 60_000 });
  return (
    <>
      <PageTitle>Admin</PageTitle>
      {health.data?.llm === 'offline-demo' && (
        // Title in the body's text colour: orange text on the light orange ground would miss AA contrast.
        <Alert color="orange" mb="md" title="The agent has no LLM" data-testid="no-llm" styles={{ title: { color: 'var(--mantine-color-text)' } }}>
          OPENAI_API_KEY is not set, so the offline demo agent answers web chats and simulated prospects only. Real prospects on
          live channels go to &quot;needs a person&quot; (listed under Unanswered conversations) until an LLM is configured.
        </Alert>
      )}
      <SimpleGrid component="ul" aria-label="Admin actions" cols={{ base: 1, sm: 2, lg: 3 }} spacing="md" p={0} m={0} style={{ listStyle: 'none' }}>
        {ACTIONS.map(({ to, label, text, icon: ActionIcon }) => (
          <Box component="li" key={to}>
            <Card withBorder h="100%" padding="md" style={{ position: 'relative' }}>
              <Group gap="sm" wrap="nowrap" align="flex-start">
                <ThemeIcon variant="light" size="lg" aria-hidden>
                  <ActionIcon size={20} stroke={1.8} />
                </ThemeIcon>
                <Box>
                  <Anchor component={Link} to={to} fw={600}>
                    {label}
                  </Anchor>
                  <Text size="sm" c="dimmed" mt={4}>
                    {text}
                  </Text>
                </Box>
              </Group>
            </Card>
          </Box>
        ))}
      </SimpleGrid>
    </>
  );
}
