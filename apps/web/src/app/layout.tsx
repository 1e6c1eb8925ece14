import { ActionIcon, Anchor, Box, Burger, Button, Container, Group, Loader, Text, UnstyledButton, useComputedColorScheme, useMantineColorScheme } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import {
  IconChevronDown,
  IconHexagonFilled,
  IconLogin,
  IconMessageCircle,
  IconMessages,
  IconMicrophone,
  IconMoon,
  IconSettings,
  IconSun,
  IconUser,
  IconUserPlus,
} from '@tabler/icons-react';
import { cloneElement, lazy, Suspense, useState, type ReactElement, type ReactNode } from 'react';
import { Link, NavLink, Outlet, useNavigate } from 'react-router';
import { externalLinks, paths } from '../config/paths.ts';
import { useAuth, useLogout } from '../lib/auth.ts';
import { toastError } from '../lib/toast.ts';
import { GlobalMessage } from './global-message.tsx';

/**
 * The header's menus, phone drawer and tooltip (header-menus.tsx) are not needed to draw the first screen and
 * bring floating-ui with them: they load right after it. Until then the same buttons are drawn without their
 * pop-ups, so they exist (and are named) at once; a menu clicked meanwhile opens when its code is in.
 */
const headerMenus = () => import('./header-menus.tsx');
const CallRecordingsMenu = lazy(async () => ({ default: (await headerMenus()).CallRecordingsMenu }));
const UserMenu = lazy(async () => ({ default: (await headerMenus()).UserMenu }));
const HeaderTooltip = lazy(async () => ({ default: (await headerMenus()).HeaderTooltip }));
const MobileNavDrawer = lazy(async () => ({ default: (await headerMenus()).MobileNavDrawer }));

/**
 * A header menu: `target` alone (marked as opening a menu) until the menu's code has loaded, then the menu
 * around it; a click on the placeholder opens the menu as soon as it can.
 */
function LazyMenu(props: { target: ReactElement<Record<string, unknown>>; menu(target: ReactElement, defaultOpened: boolean): ReactNode }) {
  const [clicked, setClicked] = useState(false);
  const placeholder = cloneElement(props.target, { 'aria-haspopup': 'menu', 'aria-expanded': false, onClick: () => setClicked(true) });
  return <Suspense fallback={placeholder}>{props.menu(props.target, clicked)}</Suspense>;
}

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
  const button = (
    <ActionIcon variant="default" size="lg" aria-label={label} onClick={() => setColorScheme(next)}>
      {next === 'dark' ? <IconMoon {...ICON} /> : <IconSun {...ICON} />}
    </ActionIcon>
  );
  return (
    <Suspense fallback={button}>
      <HeaderTooltip label={label}>{button}</HeaderTooltip>
    </Suspense>
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
            <LazyMenu
              target={
                <UnstyledButton c="var(--mantine-color-anchor)">
                  <Group gap={6} wrap="nowrap" component="span">
                    <IconMicrophone {...ICON} />
                    Call Recordings
                    <IconChevronDown size={14} aria-hidden />
                  </Group>
                </UnstyledButton>
              }
              menu={(target, opened) => <CallRecordingsMenu target={target} defaultOpened={opened} />}
            />
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
            <LazyMenu
              target={
                // The accessible name starts with the visible text (WCAG 2.5.3 label in name).
                <Button variant="light" aria-label={`${auth.email} – User menu`} leftSection={<IconUser {...ICON} />}>
                  {auth.email}
                </Button>
              }
              menu={(target, opened) => <UserMenu target={target} defaultOpened={opened} email={auth.email!} onLogout={onLogout} />}
            />
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
 * drawer (header-menus.tsx). The burger is there at once; a drawer opened before its code is in shows when it is.
 */
function MobileNav(props: { onLogout(): void }) {
  const [opened, { toggle, close }] = useDisclosure(false);
  return (
    <>
      <Burger opened={opened} onClick={toggle} aria-label={opened ? 'Close navigation' : 'Open navigation'} />
      <Suspense fallback={null}>
        <MobileNavDrawer opened={opened} onClose={close} onLogout={props.onLogout} />
      </Suspense>
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
