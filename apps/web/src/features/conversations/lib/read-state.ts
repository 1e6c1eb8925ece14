import { useCallback, useSyncExternalStore } from 'react';

/**
 * Unread marks of the inbox (issue 12), kept per device in localStorage: conversation uuid → the
 * lastMessageDate the user has seen. Per device rather than per user on the server because opening a
 * conversation then costs no write on the server and no migration, and the mark is only a reading aid
 * (what needs a person is marked by the server's needsHuman). The cost: a second device shows its own marks.
 * At most MAX_ENTRIES are kept (oldest read dropped first).
 */
const KEY = 'sales-agent.inbox.read';
const MAX_ENTRIES = 2000;
const listeners = new Set<() => void>();
let cache: Record<string, string> | null = null;

function load(): Record<string, string> {
  if (cache) return cache;
  try {
    cache = JSON.parse(localStorage.getItem(KEY) ?? '{}') as Record<string, string>;
  } catch {
    cache = {};
  }
  return cache;
}

export function markRead(uuid: string, lastMessageDate: string | null) {
  if (!lastMessageDate) return;
  const current = load();
  if (current[uuid] && current[uuid] >= lastMessageDate) return;
  const next = { ...current, [uuid]: lastMessageDate };
  const keys = Object.keys(next);
  if (keys.length > MAX_ENTRIES) {
    keys.sort((a, b) => next[a].localeCompare(next[b]));
    for (const k of keys.slice(0, keys.length - MAX_ENTRIES)) delete next[k];
  }
  cache = next;
  try {
    localStorage.setItem(KEY, JSON.stringify(next));
  } catch {
    // Storage full or blocked: the marks live for this page only.
  }
  for (const l of listeners) l();
}

/** Unread: the latest message is the prospect's (or visitor's) and came after what this device has seen. */
export function isUnread(reads: Record<string, string>, c: { uuid: string; lastMessage: { role: string; dateSent: string } | null }) {
  if (!c.lastMessage || c.lastMessage.role !== 'PROSPECT') return false;
  const seen = reads[c.uuid];
  return !seen || seen < c.lastMessage.dateSent;
}

export function useReadState() {
  const subscribe = useCallback((l: () => void) => {
    listeners.add(l);
    return () => listeners.delete(l);
  }, []);
  return useSyncExternalStore(subscribe, load, load);
}
