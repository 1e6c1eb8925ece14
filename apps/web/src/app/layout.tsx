import { Anchor, Box, Burger, Container, Group, Loader, Text } from '@mantine/core';
import { useDisclosure, useMediaQuery } from '@mantine/hooks';
import { lazy, Suspense, useState } from 'react';
import { Outlet, useNavigate } from 'react-router';
import { externalLinks, paths } from '../config/paths.ts';
import { useLogout } from '../lib/auth.ts';
import { toastError } from '../lib/toast.ts';
import { GlobalMessage } from './global-message.tsx';
import { Brand, ColorSchemeToggle } from './header-parts.tsx';

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

/**
 * The wide header's chunk (desktop-header.tsx), loaded once: main.tsx starts it before the first render on a
 * wide window, so the first commit has it; on a phone it loads only if the window grows past the breakpoint.
 */
let desktopHeader: Promise<typeof import('./desktop-header.tsx')> | undefined;
export const loadDesktopHeader = () => (desktopHeader ??= import('./desktop-header.tsx'));
const DesktopHeader = lazy(loadDesktopHeader);
/** Mantine's `sm` breakpoint: the wide header from here up. */
export const WIDE_HEADER_QUERY = '(min-width: 48em)';

/** Until the wide header's chunk is in (a phone window grown wide): the brand where the header draws it. */
function DesktopHeaderLoading() {
  return (
    <Group justify="space-between" wrap="nowrap">
      <Brand />
      <ColorSchemeToggle />
    </Group>
  );
}

function Header() {
  // Mantine's `sm` breakpoint (48em), read at the first render (no flash of the other header).
  const wide = useMediaQuery(WIDE_HEADER_QUERY, true, { getInitialValueInEffect: false });
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
        <Suspense fallback={<DesktopHeaderLoading />}>
          <DesktopHeader onLogout={onLogout} />
        </Suspense>
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
