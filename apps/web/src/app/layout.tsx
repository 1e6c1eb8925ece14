import { Anchor, Box, Burger, Button, Container, Divider, Drawer, Group, Loader, Menu, NavLink as MantineNavLink, Text, UnstyledButton } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { Link, NavLink, Outlet, useNavigate } from 'react-router';
import { externalLinks, paths } from '../config/paths.ts';
import { useAuth, useLogout } from '../lib/auth.ts';
import { toastError } from '../lib/toast.ts';
import { GlobalMessage } from './global-message.tsx';

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
    <Box component="header" px="md" py="sm" style={{ borderBottom: '1px solid var(--mantine-color-gray-3)' }}>
      <Group justify="space-between" wrap="nowrap" hiddenFrom="sm">
        <Anchor component={Link} to={paths.home} fw={700} size="lg" underline="never" aria-label="Sales Agent home">
          ◆ Sales Agent
        </Anchor>
        <MobileNav onLogout={onLogout} />
      </Group>
      <Group justify="space-between" wrap="nowrap" visibleFrom="sm">
        <Group gap="lg" component="nav" aria-label="Main">
          <Anchor component={Link} to={paths.home} fw={700} size="lg" underline="never" aria-label="Sales Agent home">
            ◆ Sales Agent
          </Anchor>
          <Anchor component={NavLink} to={paths.conversationNew}>
            Sales Agent
          </Anchor>
          {auth.isAuthenticated && (
            <Menu position="bottom-start" withinPortal>
              <Menu.Target>
                <UnstyledButton c="indigo" aria-label="Call Recordings">
                  Call Recordings ▾
                </UnstyledButton>
              </Menu.Target>
              <Menu.Dropdown>
                <Menu.Item component={Link} to={paths.callRecordingsUpload}>
                  Upload Recordings
                </Menu.Item>
                <Menu.Item component={Link} to={paths.callRecordingsStatistics}>
                  Statistics
                </Menu.Item>
              </Menu.Dropdown>
            </Menu>
          )}
          {auth.isAdmin && (
            <Anchor component={NavLink} to={paths.admin.hello}>
              Admin
            </Anchor>
          )}
        </Group>
        <Group gap="sm">
          {auth.isAuthenticated ? (
            <Menu position="bottom-end" withinPortal>
              <Menu.Target>
                <Button variant="light" aria-label="User menu">
                  {auth.email}
                </Button>
              </Menu.Target>
              <Menu.Dropdown>
                <Menu.Item component={Link} to={paths.profile(auth.email!)}>
                  Profile
                </Menu.Item>
                <Menu.Item onClick={onLogout}>Logout</Menu.Item>
              </Menu.Dropdown>
            </Menu>
          ) : auth.isLoading ? null : (
            <>
              <Button component={Link} to={paths.login} variant="subtle">
                Login
              </Button>
              <Button component={Link} to={paths.register}>
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
  const item = (label: string, to: string) => <MantineNavLink component={NavLink} to={to} label={label} onClick={close} />;
  return (
    <>
      <Burger opened={opened} onClick={toggle} aria-label={opened ? 'Close navigation' : 'Open navigation'} />
      <Drawer opened={opened} onClose={close} position="right" size="xs" title="Menu">
        <Box component="nav" aria-label="Main">
          {item('Sales Agent', paths.conversationNew)}
          {auth.isAuthenticated && (
            <>
              <Text size="xs" c="dimmed" tt="uppercase" fw={700} px="sm" pt="sm">
                Call Recordings
              </Text>
              {item('Upload Recordings', paths.callRecordingsUpload)}
              {item('Statistics', paths.callRecordingsStatistics)}
            </>
          )}
          {auth.isAdmin && item('Admin', paths.admin.hello)}
          <Divider my="sm" />
          {auth.isAuthenticated ? (
            <>
              <Text size="sm" c="dimmed" px="sm" pb="xs" style={{ wordBreak: 'break-all' }}>
                {auth.email}
              </Text>
              {item('Profile', paths.profile(auth.email!))}
              <MantineNavLink
                component="button"
                label="Logout"
                onClick={() => {
                  close();
                  props.onLogout();
                }}
              />
            </>
          ) : auth.isLoading ? null : (
            <>
              {item('Login', paths.login)}
              {item('Register', paths.register)}
            </>
          )}
        </Box>
      </Drawer>
    </>
  );
}

function Footer() {
  return (
    <Box component="footer" px="md" py="sm" style={{ borderTop: '1px solid var(--mantine-color-gray-3)' }}>
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
