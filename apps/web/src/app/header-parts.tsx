import { ActionIcon, Anchor, Group, useComputedColorScheme, useMantineColorScheme } from '@mantine/core';
import { IconHexagonFilled, IconMoon, IconSun } from '@tabler/icons-react';
import type { ReactNode } from 'react';
import { Link, NavLink } from 'react-router';
import { paths } from '../config/paths.ts';

/** The header's pieces shared by the phone header (layout.tsx) and the wide one (desktop-header.tsx). */
export const ICON = { size: 18, stroke: 1.8, 'aria-hidden': true } as const;

export function Brand() {
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
export function NavItem(props: { to: string; icon: ReactNode; children: string }) {
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
