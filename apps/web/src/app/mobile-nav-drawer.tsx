import { Box, Divider, Drawer, NavLink as MantineNavLink, Text } from '@mantine/core';
import { IconChartBar, IconChartFunnel, IconLogin, IconLogout, IconMessageCircle, IconMessages, IconSettings, IconUpload, IconUser, IconUserPlus } from '@tabler/icons-react';
import type { ReactNode } from 'react';
import { NavLink } from 'react-router';
import { paths } from '../config/paths.ts';
import { useAuth } from '../lib/auth.ts';
import { ICON } from './header-parts.tsx';

/**
 * The phone's navigation (layout.tsx, MobileNav): the header's links in a drawer. Links close it on click, so
 * focus returns to the page that opens.
 */
export default function MobileNavDrawer(props: { opened: boolean; onClose(): void; onLogout(): void }) {
  const auth = useAuth();
  const item = (label: string, to: string, icon: ReactNode) => (
    <MantineNavLink component={NavLink} to={to} label={label} leftSection={icon} onClick={props.onClose} />
  );
  return (
    <Drawer opened={props.opened} onClose={props.onClose} position="right" size="xs" title="Menu">
      <Box component="nav" aria-label="Main">
        {item('Sales Agent', paths.conversationNew, <IconMessageCircle {...ICON} />)}
        {auth.isAuthenticated && item('Conversations', paths.conversationList, <IconMessages {...ICON} />)}
        {auth.isAuthenticated && (
          <>
            <Text size="xs" c="dimmed" tt="uppercase" fw={700} px="sm" pt="sm">
              Call Recordings
            </Text>
            {item('Upload Recordings', paths.callRecordingsUpload, <IconUpload {...ICON} />)}
            {item('Statistics', paths.callRecordingsStatistics, <IconChartBar {...ICON} />)}
          </>
        )}
        {auth.isAuthenticated && item('Analytics', paths.analytics, <IconChartFunnel {...ICON} />)}
        {auth.isAdmin && item('Admin', paths.admin.hello, <IconSettings {...ICON} />)}
        <Divider my="sm" />
        {auth.isAuthenticated ? (
          <>
            <Text size="sm" c="dimmed" px="sm" pb="xs" style={{ wordBreak: 'break-all' }}>
              {auth.email}
            </Text>
            {item('Profile', paths.profile(auth.email!), <IconUser {...ICON} />)}
            <MantineNavLink
              component="button"
              label="Logout"
              leftSection={<IconLogout {...ICON} />}
              onClick={() => {
                props.onClose();
                props.onLogout();
              }}
            />
          </>
        ) : auth.isLoading ? null : (
          <>
            {item('Login', paths.login, <IconLogin {...ICON} />)}
            {item('Register', paths.register, <IconUserPlus {...ICON} />)}
          </>
        )}
      </Box>
    </Drawer>
  );
}
