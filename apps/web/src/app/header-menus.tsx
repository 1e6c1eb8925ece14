import { Box, Divider, Drawer, Menu, NavLink as MantineNavLink, Text, Tooltip } from '@mantine/core';
import { IconChartBar, IconLogin, IconLogout, IconMessageCircle, IconMessages, IconSettings, IconUpload, IconUser, IconUserPlus } from '@tabler/icons-react';
import type { ReactElement, ReactNode } from 'react';
import { Link, NavLink } from 'react-router';
import { paths } from '../config/paths.ts';
import { useAuth } from '../lib/auth.ts';

/**
 * The header's pop-ups: its menus, the phone drawer and the tooltip. layout.tsx loads this module lazily,
 * right after the first screen: Menu and Tooltip bring floating-ui (about 20 KB brotli) and none of them is
 * needed to draw the first screen. Until it is in, layout.tsx draws the same buttons without their pop-ups.
 */

const ICON = { size: 18, stroke: 1.8, 'aria-hidden': true } as const;

/** A menu whose button is `target` (drawn by layout.tsx, also as the placeholder); opened at once when clicked before this module had loaded. */
interface HeaderMenuProps {
  target: ReactElement;
  defaultOpened: boolean;
}

export function CallRecordingsMenu({ target, defaultOpened }: HeaderMenuProps) {
  return (
    <Menu position="bottom-start" withinPortal defaultOpened={defaultOpened}>
      <Menu.Target>{target}</Menu.Target>
      <Menu.Dropdown>
        <Menu.Item component={Link} to={paths.callRecordingsUpload} leftSection={<IconUpload {...ICON} />}>
          Upload Recordings
        </Menu.Item>
        <Menu.Item component={Link} to={paths.callRecordingsStatistics} leftSection={<IconChartBar {...ICON} />}>
          Statistics
        </Menu.Item>
      </Menu.Dropdown>
    </Menu>
  );
}

export function UserMenu({ target, defaultOpened, email, onLogout }: HeaderMenuProps & { email: string; onLogout(): void }) {
  return (
    <Menu position="bottom-end" withinPortal defaultOpened={defaultOpened}>
      <Menu.Target>{target}</Menu.Target>
      <Menu.Dropdown>
        <Menu.Item component={Link} to={paths.profile(email)} leftSection={<IconUser {...ICON} />}>
          Profile
        </Menu.Item>
        <Menu.Item onClick={onLogout} leftSection={<IconLogout {...ICON} />}>
          Logout
        </Menu.Item>
      </Menu.Dropdown>
    </Menu>
  );
}

export function HeaderTooltip({ label, children }: { label: string; children: ReactElement }) {
  return <Tooltip label={label}>{children}</Tooltip>;
}

/** The phone navigation (layout.tsx's burger opens it): links close it on click, so focus returns to the page that opens. */
export function MobileNavDrawer(props: { opened: boolean; onClose(): void; onLogout(): void }) {
  const auth = useAuth();
  const close = props.onClose;
  const item = (label: string, to: string, icon: ReactNode) => (
    <MantineNavLink component={NavLink} to={to} label={label} leftSection={icon} onClick={close} />
  );
  return (
    <Drawer opened={props.opened} onClose={close} position="right" size="xs" title="Menu">
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
                close();
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
