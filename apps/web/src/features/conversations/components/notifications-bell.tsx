import { ActionIcon, Button, Indicator, Menu, Switch, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { IconBell } from '@tabler/icons-react';
import { useEffect, useRef, useState } from 'react';
import { notificationsQuery, useMarkNotificationsRead } from '../api/workspace.ts';
import { alertUser, newlyNeedingPerson, setSoundEnabled, soundEnabled } from '../lib/alerts.ts';
import { relativeTime } from '../lib/relative-time.ts';

const KIND_TEXT = { assigned: 'assigned you a conversation', mentioned: 'mentioned you in a note' } as const;

/**
 * The signed-in user's notifications (issue 24): assigned to me, mentioned in a note. The unread count also
 * goes into the tab title; desktop notifications (Web Notifications API) only after the user asks for them,
 * and a sound when the user turns it on. A conversation of the inbox's list that newly needs a person alerts too.
 */
export function NotificationsBell(props: {
  onOpen(uuid: string): void;
  unreadConversations: number;
  /** The inbox's current rows: one that newly needs a person alerts (sound, desktop notification). */
  rows?: readonly { uuid: string; needsHuman: boolean }[];
}) {
  const list = useQuery(notificationsQuery());
  const markRead = useMarkNotificationsRead();
  const unread = list.data?.unread ?? 0;
  const seen = useRef<number | null>(null);
  const needing = useRef<ReadonlySet<string> | null>(null);
  const [sound, setSound] = useState(soundEnabled);

  useEffect(() => {
    if (!props.rows) return;
    const { now, fresh } = newlyNeedingPerson(needing.current, props.rows);
    needing.current = now;
    if (fresh.length > 0) alertUser(fresh.length === 1 ? 'A conversation needs a person' : `${fresh.length} conversations need a person`, { sound });
  }, [props.rows, sound]);

  useEffect(() => {
    const total = unread + props.unreadConversations;
    const base = 'Conversations · Sales Agent';
    document.title = total > 0 ? `(${total}) ${base}` : base;
    return () => {
      document.title = base;
    };
  }, [unread, props.unreadConversations]);

  // A new notification while the tab is in the background: a desktop notification, when allowed.
  const newest = list.data?.notifications[0];
  useEffect(() => {
    if (!newest) return;
    if (seen.current !== null && newest.id > seen.current && !newest.read) {
      alertUser(`${newest.byEmail ?? 'A teammate'} ${KIND_TEXT[newest.kind]}`, { sound });
    }
    seen.current = Math.max(seen.current ?? 0, newest.id);
  }, [newest, sound]);

  return (
    // The indicator wraps the menu, so the menu's popup attributes land on the button itself.
    <Indicator label={unread} size={16} disabled={unread === 0} offset={4}>
    <Menu position="bottom-end" width={320} withinPortal onOpen={() => unread > 0 && markRead.mutate(undefined)}>
      <Menu.Target>
        <ActionIcon variant="default" size="lg" aria-label={unread > 0 ? `Notifications (${unread} new)` : 'Notifications'} data-testid="notifications-bell">
          <IconBell size={18} aria-hidden />
        </ActionIcon>
      </Menu.Target>
      <Menu.Dropdown data-testid="notifications">
        {(list.data?.notifications ?? []).length === 0 ? (
          <Text size="sm" p="xs" c="dimmed">
            Nothing yet. You are told here when a conversation is assigned to you or a teammate mentions you.
          </Text>
        ) : (
          list.data!.notifications.slice(0, 15).map((n) => (
            <Menu.Item key={n.id} onClick={() => props.onOpen(n.conversationUuid)} data-testid="notification">
              <Text size="sm" fw={n.read ? 400 : 600}>
                {n.byEmail ?? 'A teammate'} {KIND_TEXT[n.kind]}
              </Text>
              {n.text && (
                <Text size="xs" c="dimmed" lineClamp={2}>
                  {n.text}
                </Text>
              )}
              <Text size="xs" c="dimmed">
                {relativeTime(n.createdAt)}
              </Text>
            </Menu.Item>
          ))
        )}
        <Menu.Item closeMenuOnClick={false} component="div">
          <Switch
            size="xs"
            label="Play a sound"
            checked={sound}
            onChange={(e) => {
              const on = e.currentTarget.checked;
              setSoundEnabled(on);
              setSound(on);
            }}
          />
        </Menu.Item>
        {typeof Notification !== 'undefined' && Notification.permission === 'default' && (
          <Menu.Item closeMenuOnClick={false}>
            <Button size="compact-xs" variant="subtle" onClick={() => void Notification.requestPermission()}>
              Also show desktop notifications
            </Button>
          </Menu.Item>
        )}
      </Menu.Dropdown>
    </Menu>
    </Indicator>
  );
}

