import { ActionIcon, Group, Textarea } from '@mantine/core';
import { LIMITS } from '@sales-agent/shared/limits';
import { IconSend } from '@tabler/icons-react';
import { type RefObject, useRef, useState } from 'react';
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
}) {
  const { draftKey } = props;
  const [value, setValue] = useState(() => props.initialValue ?? (draftKey ? readDraft(draftKey) : ''));
  const [busy, setBusy] = useState(false);
  const ownInput = useRef<HTMLTextAreaElement>(null);
  const input = props.inputRef ?? ownInput;
  const trimmed = value.trim();

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
    <Group align="flex-end" gap="xs" wrap="nowrap">
      <Textarea
        aria-label={props.label}
        placeholder={props.placeholder ?? 'Write a message… (Enter sends, Shift+Enter adds a line)'}
        value={value}
        onChange={(e) => {
          const text = e.currentTarget.value;
          setValue(text);
          if (draftKey) writeDraft(draftKey, text);
        }}
        onKeyDown={(e) => {
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
  );
}
