import {
  ActionIcon,
  Anchor,
  Box,
  Burger,
  Button,
  Container,
  Group,
  Loader,
  Menu,
  Text,
  UnstyledButton,
  useComputedColorScheme,
  useMantineColorScheme,
} from '@mantine/core';
import { useDisclosure, useMediaQuery } from '@mantine/hooks';
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
import { lazy, type ReactNode, Suspense, useState } from 'react';
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
    // The browser's own tooltip (title): Mantine's Tooltip positions itself with floating-ui as the header
    // first renders, on every page, for a label the button already has.
    <ActionIcon variant="default" size="lg" aria-label={label} title={label} onClick={() => setColorScheme(next)}>
      {next === 'dark' ? <IconMoon {...ICON} /> : <IconSun {...ICON} />}
    </ActionIcon>
  );
}

function Header() {
  const auth = useAuth();
  // Mantine's `sm` breakpoint (48em), read at the first render (no flash of the other header).
  const wide = useMediaQuery('(min-width: 48em)', true, { getInitialValueInEffect: false });
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
      {/* One of the two headers is rendered, not both with one hidden: half the work for the first screen. */}
      {!wide ? (
        <Group justify="space-between" wrap="nowrap">
          <Brand />
          <Group gap="xs" wrap="nowrap">
            <ColorSchemeToggle />
            <MobileNav onLogout={onLogout} />
          </Group>
        </Group>
      ) : (
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
      )}
    </Box>
  );
}

/**
 * Below the `sm` breakpoint the header links do not fit in one row: a burger opens the same navigation in a
 * drawer (mobile-nav-drawer.tsx). The drawer's code loads when the burger is first touched or focused, not with
 * the first screen; the burger stays the same element, so focus does not move.
 */
const loadDrawer = () => import('./mobile-nav-drawer.tsx');
const MobileNavDrawer = lazy(loadDrawer);

function MobileNav(props: { onLogout(): void }) {
  const [opened, { toggle, close }] = useDisclosure(false);
  const [used, setUsed] = useState(false);
  const prefetch = () => void loadDrawer().catch(() => undefined);
  return (
    <>
      <Burger
        opened={opened}
        onClick={() => {
          setUsed(true);
          toggle();
        }}
        onPointerEnter={prefetch}
        onTouchStart={prefetch}
        onFocus={prefetch}
        aria-label={opened ? 'Close navigation' : 'Open navigation'}
        aria-expanded={opened}
      />
      {used && (
        <Suspense fallback={null}>
          <MobileNavDrawer opened={opened} onClose={close} onLogout={props.onLogout} />
        </Suspense>
      )}
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
