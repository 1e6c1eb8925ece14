import { ActionIcon, Group, Paper, Stack, Text, Textarea, UnstyledButton } from '@mantine/core';
import { LIMITS } from '@sales-agent/shared/limits';
import { IconSend } from '@tabler/icons-react';
import { type RefObject, useId, useRef, useState } from 'react';
import { matchShortcuts, type Shortcut } from '../lib/canned-shortcuts.ts';
import { clearDraft, readDraft, writeDraft } from '../lib/drafts.ts';

/**
 * Spec §5: trimmed text must be non-empty; Enter sends, Shift+Enter adds a newline; the box grows up to 9
 * lines of 24 px. With `draftKey` (a conversation's uuid) what is typed is kept as that conversation's draft
 * (lib/drafts.ts) until it is sent, so the box unmounting or a reload loses nothing (issue 18).
 */
export function MessageBox(props: {
  onSend(text: string): Promise<boolean>;
  label: string;
  placeholder?: string;
  initialValue?: string;
  submitLabel?: string;
  autoFocus?: boolean;
  /** Keep the text as this conversation's draft (its uuid) until it is sent. */
  draftKey?: string;
  /** Lets a parent focus the box (the inbox's reply shortcut). */
  inputRef?: RefObject<HTMLTextAreaElement | null>;
  /** Canned replies: typing "/" at the start lists them; Enter, Tab or a click puts the chosen text in the box. */
  shortcuts?: readonly Shortcut[];
}) {
  const { draftKey } = props;
  const [value, setValue] = useState(() => props.initialValue ?? (draftKey ? readDraft(draftKey) : ''));
  const [busy, setBusy] = useState(false);
  const ownInput = useRef<HTMLTextAreaElement>(null);
  const input = props.inputRef ?? ownInput;
  const trimmed = value.trim();
  const [active, setActive] = useState(0);
  const [dismissed, setDismissed] = useState<string | null>(null);
  const menuId = useId();
  const matches = props.shortcuts && dismissed !== value ? matchShortcuts(value, props.shortcuts) : null;
  const menuOpen = !!matches && matches.length > 0;
  const chosen = menuOpen ? Math.min(active, matches.length - 1) : -1;

  const change = (text: string) => {
    setValue(text);
    setActive(0);
    if (draftKey) writeDraft(draftKey, text);
  };
  const insert = (reply: Shortcut) => {
    change(reply.text);
    input.current?.focus();
  };

  const submit = async () => {
    if (!trimmed || busy) return;
    setBusy(true);
    try {
      if (await props.onSend(trimmed)) {
        setValue('');
        if (draftKey) clearDraft(draftKey);
      }
    } finally {
      setBusy(false);
      // The send button or a toast may have taken focus; the writer goes on typing in the box.
      input.current?.focus();
    }
  };

  return (
    <Stack gap={4}>
      {menuOpen && (
        <Paper withBorder shadow="sm" p={4} id={menuId} role="listbox" aria-label="Canned replies" mah={220} style={{ overflowY: 'auto' }}>
          {matches.map((reply, i) => (
            <UnstyledButton
              key={reply.shortcut}
              id={`${menuId}-${i}`}
              role="option"
              aria-selected={i === chosen}
              // Keep the focus in the box: the click inserts, the writer goes on typing.
              onMouseDown={(e) => e.preventDefault()}
              onClick={() => insert(reply)}
              w="100%"
              px="xs"
              py={4}
              style={{ borderRadius: 4, background: i === chosen ? 'var(--mantine-primary-color-light)' : undefined }}
            >
              <Text size="sm" fw={600} span>
                /{reply.shortcut}
              </Text>{' '}
              <Text size="sm" c="dimmed" span lineClamp={1}>
                {reply.text}
              </Text>
            </UnstyledButton>
          ))}
        </Paper>
      )}
      <Group align="flex-end" gap="xs" wrap="nowrap">
        <Textarea
          aria-label={props.label}
          placeholder={props.placeholder ?? 'Write a message… (Enter sends, Shift+Enter adds a line)'}
          value={value}
          aria-controls={menuOpen ? menuId : undefined}
          aria-autocomplete={props.shortcuts ? 'list' : undefined}
          aria-activedescendant={menuOpen ? `${menuId}-${chosen}` : undefined}
          onChange={(e) => change(e.currentTarget.value)}
          onKeyDown={(e) => {
            if (menuOpen) {
              const move = e.key === 'ArrowDown' ? 1 : e.key === 'ArrowUp' ? -1 : 0;
              if (move) {
                e.preventDefault();
                setActive((chosen + move + matches.length) % matches.length);
                return;
              }
              if ((e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) || e.key === 'Tab') {
                e.preventDefault();
                insert(matches[chosen]!);
                return;
              }
              if (e.key === 'Escape') {
                // Closes the menu only (not the conversation, as Escape does in the inbox).
                e.preventDefault();
                e.stopPropagation();
                setDismissed(value);
                return;
              }
            }
            if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
              e.preventDefault();
              void submit();
            }
          }}
          autosize
          minRows={1}
          maxRows={LIMITS.textareaMaxLines}
          styles={{ input: { lineHeight: `${LIMITS.textareaLineHeightPx}px` } }}
          style={{ flex: 1 }}
          autoFocus={props.autoFocus}
          // readOnly (not disabled) while sending, so the box keeps the keyboard focus.
          readOnly={busy}
          ref={input}
        />
        <ActionIcon size="lg" onClick={submit} disabled={!trimmed} loading={busy} aria-label={props.submitLabel ?? 'Send'} variant="filled">
          <IconSend size={18} aria-hidden />
        </ActionIcon>
      </Group>
    </Stack>
  );
}
