import { ActionIcon, Group, Textarea } from '@mantine/core';
import { LIMITS } from '@sales-agent/shared/limits';
import { IconSend } from '@tabler/icons-react';
import { type RefObject, useRef, useState } from 'react';

/**
 * Spec §5: trimmed text must be non-empty; Enter sends, Shift+Enter adds a newline; the box grows up to 9
 * lines of 24 px.
 */
export function MessageBox(props: {
  onSend(text: string): Promise<boolean>;
  label: string;
  placeholder?: string;
  initialValue?: string;
  submitLabel?: string;
  autoFocus?: boolean;
  /** Lets a parent focus the box (the inbox's reply shortcut). */
  inputRef?: RefObject<HTMLTextAreaElement | null>;
}) {
  const [value, setValue] = useState(props.initialValue ?? '');
  const [busy, setBusy] = useState(false);
  const ownInput = useRef<HTMLTextAreaElement>(null);
  const input = props.inputRef ?? ownInput;
  const trimmed = value.trim();

  const submit = async () => {
    if (!trimmed || busy) return;
    setBusy(true);
    try {
      if (await props.onSend(trimmed)) setValue('');
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
        onChange={(e) => setValue(e.currentTarget.value)}
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
