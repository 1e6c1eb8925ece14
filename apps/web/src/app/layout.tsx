import {
  ActionIcon,
  Anchor,
  Box,
  Burger,
  Button,
  Container,
  Divider,
  Drawer,
  Group,
  Loader,
  Menu,
  NavLink as MantineNavLink,
  Text,
  Tooltip,
  UnstyledButton,
  useComputedColorScheme,
  useMantineColorScheme,
} from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import {
  IconChevronDown,
  IconHexagonFilled,
  IconLogin,
  IconLogout,
  IconMessageCircle,
  IconMessages,
  IconMicrophone,
  IconMoon,
  IconSettings,
  IconSun,
  IconUpload,
  IconUser,
  IconUserPlus,
  IconChartBar,
} from '@tabler/icons-react';
import type { ReactNode } from 'react';
import { Link, NavLink, Outlet, useNavigate } from 'react-router';
import { externalLinks, paths } from '../config/paths.ts';
import { useAuth, useLogout } from '../lib/auth.ts';
import { toastError } from '../lib/toast.ts';
import { GlobalMessage } from './global-message.tsx';

const ICON = { size: 18, stroke: 1.8, 'aria-hidden': true } as const;
const BORDER = '1px solid var(--mantine-color-default-border)';

/** Spec §2.1: toast area (providers), global notification, header, main content, footer. */
export function Layout() {
  return (
    <Box style={{ minHeight: '100vh', display: 'flex', flexDirection: 'column' }}>
      <GlobalMessage />
      <Header />
      <Container component="main" size="xl" w="100%" py="md" style={{ flex: 1 }}>
        <Outlet />
      </Container>
      <Footer />
    </Box>
  );
}

/** Shown while the first page's lazy chunk loads (react-router's HydrateFallback). */
export function AppLoading() {
  return (
    <Box style={{ minHeight: '100vh', display: 'grid', placeItems: 'center' }}>
      <Loader aria-label="Loading" />
    </Box>
  );
}

function Brand() {
  return (
    <Anchor component={Link} to={paths.home} fw={700} size="lg" underline="never" aria-label="Sales Agent home">
      <Group gap={6} wrap="nowrap" component="span">
        <IconHexagonFilled size={20} aria-hidden />
        Sales Agent
      </Group>
    </Anchor>
  );
}

/** A header link: an icon from the maintained set, then the spec's text (the accessible name). */
function NavItem(props: { to: string; icon: ReactNode; children: string }) {
  return (
    <Anchor component={NavLink} to={props.to} underline="hover">
      <Group gap={6} wrap="nowrap" component="span">
        {props.icon}
        {props.children}
      </Group>
    </Anchor>
  );
}

/** Light/dark toggle; until used, the scheme follows the system (MantineProvider defaultColorScheme="auto"). */
export function ColorSchemeToggle() {
  const { setColorScheme } = useMantineColorScheme();
  const computed = useComputedColorScheme('light', { getInitialValueInEffect: false });
  const next = computed === 'dark' ? 'light' : 'dark';
  const label = next === 'dark' ? 'Switch to dark mode' : 'Switch to light mode';
  return (
    <Tooltip label={label}>
      <ActionIcon variant="default" size="lg" aria-label={label} onClick={() => setColorScheme(next)}>
        {next === 'dark' ? <IconMoon {...ICON} /> : <IconSun {...ICON} />}
      </ActionIcon>
    </Tooltip>
  );
}

function Header() {
  const auth = useAuth();
  const logout = useLogout();
  const navigate = useNavigate();
  const onLogout = async () => {
    try {
      await logout();
    } catch (err) {
      toastError(err);
    }
    navigate(paths.login);
  };
  return (
    <Box component="header" px="md" py="sm" style={{ borderBottom: BORDER }}>
      <Group justify="space-between" wrap="nowrap" hiddenFrom="sm">
        <Brand />
        <Group gap="xs" wrap="nowrap">
          <ColorSchemeToggle />
          <MobileNav onLogout={onLogout} />
        </Group>
      </Group>
      <Group justify="space-between" wrap="nowrap" visibleFrom="sm">
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
    </Box>
  );
}

/**
 * Below the `sm` breakpoint the header links do not fit in one row: a burger opens the same navigation in a
 * drawer (links close it on click, so focus returns to the page that opens).
 */
function MobileNav(props: { onLogout(): void }) {
  const auth = useAuth();
  const [opened, { toggle, close }] = useDisclosure(false);
  const item = (label: string, to: string, icon: ReactNode) => (
    <MantineNavLink component={NavLink} to={to} label={label} leftSection={icon} onClick={close} />
  );
  return (
    <>
      <Burger opened={opened} onClick={toggle} aria-label={opened ? 'Close navigation' : 'Open navigation'} />
      <Drawer opened={opened} onClose={close} position="right" size="xs" title="Menu">
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
    </>
  );
}

function Footer() {
  return (
    <Box component="footer" px="md" py="sm" style={{ borderTop: BORDER }}>
      <Group justify="space-between" gap="xs">
        <Group gap="md">
          <Anchor href={externalLinks.terms} target="_blank" rel="noreferrer" size="sm">
            Terms of Service
          </Anchor>
          <Anchor href={externalLinks.privacy} target="_blank" rel="noreferrer" size="sm">
            Privacy Policy
          </Anchor>
        </Group>
        <Text size="sm" c="dimmed">
          © 2024–{new Date().getFullYear()} Sales Agent
        </Text>
      </Group>
    </Box>
  );
}
