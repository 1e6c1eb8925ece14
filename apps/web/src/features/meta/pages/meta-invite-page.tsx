import { Anchor, Card, List, Stack, Text } from '@mantine/core';
import { Link } from 'react-router';
import { PageTitle } from '../../../components/page-title.tsx';
import { paths } from '../../../config/paths.ts';
import { useAuth } from '../../../lib/auth.ts';
import { ConnectButtons } from '../components/connect-buttons.tsx';

/** The consent page (spec §2.2 /user/meta-invite): what connecting grants, then the connect buttons. */
export default function MetaInvitePage() {
  const auth = useAuth();
  return (
    <Card withBorder maw={640} mx="auto" mt="xl" p="lg">
      <Stack>
        <PageTitle>Connect your accounts</PageTitle>
        <Text>You have been invited to let the Sales Agent answer your customers. Connecting an account allows it to:</Text>
        <List>
          <List.Item>read the messages people send to your Instagram account, Facebook Page or WhatsApp number;</List.Item>
          <List.Item>reply to them in your name, following the sales playbook your team set up;</List.Item>
          <List.Item>read the account's name to show it in your profile and conversations.</List.Item>
        </List>
        <Text size="sm" c="dimmed">
          Access tokens are stored encrypted and are never shown to anyone. You can disconnect an account at any time from your profile, which
          also removes all conversations associated with it.
        </Text>
        {auth.isAuthenticated ? (
          <ConnectButtons />
        ) : (
          <Text>
            Please{' '}
            <Anchor component={Link} to={`${paths.login}?redirect=${encodeURIComponent(paths.metaInvite)}`}>
              log in
            </Anchor>{' '}
            or{' '}
            <Anchor component={Link} to={paths.register}>
              register
            </Anchor>{' '}
            first, then connect your accounts here.
          </Text>
        )}
      </Stack>
    </Card>
  );
}
