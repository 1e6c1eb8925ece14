import { Button, Group, Menu, UnstyledButton } from '@mantine/core';
import { IconChartBar, IconChartFunnel, IconChevronDown, IconLogin, IconLogout, IconMessageCircle, IconMessages, IconMicrophone, IconSettings, IconUpload, IconUser, IconUserPlus } from '@tabler/icons-react';
import { Link } from 'react-router';
import { paths } from '../config/paths.ts';
import { useAuth } from '../lib/auth.ts';
import { Brand, ColorSchemeToggle, ICON, NavItem } from './header-parts.tsx';

/**
 * The header from Mantine's `sm` breakpoint up (layout.tsx): the navigation in one row, the Call Recordings and
 * user menus. A chunk of its own with the menus' code (Menu, Popover, floating-ui), which a phone's first screen
 * does not need; main.tsx loads it before the first render on a wide window.
 */
export default function DesktopHeader(props: { onLogout(): void }) {
  const auth = useAuth();
  const onLogout = props.onLogout;
  return (
    <Group justify="space-between" wrap="nowrap">
      <Group gap="lg" component="nav" aria-label="Main">
        <Brand />
        <NavItem to={paths.conversationNew} icon={<IconMessageCircle {...ICON} />}>
          Sales Agent
        </NavItem>
        {auth.isAuthenticated && (
          <NavItem to={paths.conversationList} icon={<IconMessages {...ICON} />}>
            Conversations
          </NavItem>
        )}
        {auth.isAuthenticated && (
          <Menu position="bottom-start" withinPortal>
            <Menu.Target>
              <UnstyledButton c="var(--mantine-color-anchor)">
                <Group gap={6} wrap="nowrap" component="span">
                  <IconMicrophone {...ICON} />
                  Call Recordings
                  <IconChevronDown size={14} aria-hidden />
                </Group>
              </UnstyledButton>
            </Menu.Target>
            <Menu.Dropdown>
              <Menu.Item component={Link} to={paths.callRecordingsUpload} leftSection={<IconUpload {...ICON} />}>
                Upload Recordings
              </Menu.Item>
              <Menu.Item component={Link} to={paths.callRecordingsStatistics} leftSection={<IconChartBar {...ICON} />}>
                Statistics
              </Menu.Item>
            </Menu.Dropdown>
          </Menu>
        )}
        {auth.isAuthenticated && (
          <NavItem to={paths.analytics} icon={<IconChartFunnel {...ICON} />}>
            Analytics
          </NavItem>
        )}
        {auth.isAdmin && (
          <NavItem to={paths.admin.hello} icon={<IconSettings {...ICON} />}>
            Admin
          </NavItem>
        )}
      </Group>
      <Group gap="sm" wrap="nowrap">
        <ColorSchemeToggle />
        {auth.isAuthenticated ? (
          <Menu position="bottom-end" withinPortal>
            <Menu.Target>
              {/* The accessible name starts with the visible text (WCAG 2.5.3 label in name). */}
              <Button variant="light" aria-label={`${auth.email} – User menu`} leftSection={<IconUser {...ICON} />}>
                {auth.email}
              </Button>
            </Menu.Target>
            <Menu.Dropdown>
              <Menu.Item component={Link} to={paths.profile(auth.email!)} leftSection={<IconUser {...ICON} />}>
                Profile
              </Menu.Item>
              <Menu.Item onClick={onLogout} leftSection={<IconLogout {...ICON} />}>
                Logout
              </Menu.Item>
            </Menu.Dropdown>
          </Menu>
        ) : auth.isLoading ? null : (
          <>
            <Button component={Link} to={paths.login} variant="subtle" leftSection={<IconLogin {...ICON} />}>
              Login
            </Button>
            <Button component={Link} to={paths.register} leftSection={<IconUserPlus {...ICON} />}>
              Register
            </Button>
          </>
        )}
      </Group>
    </Group>
  );
}
