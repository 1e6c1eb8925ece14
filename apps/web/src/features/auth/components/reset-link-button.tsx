import { Button, CopyButton, Group, Modal, Stack, Text, TextInput } from '@mantine/core';
import { IconKey } from '@tabler/icons-react';
import { useState } from 'react';
import { useCreateResetLink } from '../api/auth.ts';

/**
 * ADMIN: creates a one-time link for a user to set a new password and shows it to copy (for a server without
 * email sending, or a user who cannot read theirs). The link works once, for 24 hours, and signs the user out
 * everywhere when used.
 */
export function ResetLinkButton({ email, size = 'sm' }: { email: string; size?: 'xs' | 'sm' }) {
  const [link, setLink] = useState<{ url: string; expiresAt: string } | null>(null);
  const create = useCreateResetLink();
  return (
    <>
      <Button size={size} variant="light" leftSection={<IconKey size={14} aria-hidden />} loading={create.isPending} onClick={() => create.mutate(email, { onSuccess: setLink })} aria-label={`Create a password reset link for ${email}`}>
        Reset link
      </Button>
      <Modal opened={link !== null} onClose={() => setLink(null)} title="Password reset link" size="lg">
        {link ? (
          <Stack>
            <Text size="sm">
              Send this link to {email} yourself. It works once, until {new Date(link.expiresAt).toLocaleString()}, and signs them out everywhere when
              they set their new password.
            </Text>
            <TextInput label="Link" readOnly value={link.url} onFocus={(e) => e.currentTarget.select()} data-testid="reset-link" />
            <Group justify="flex-end">
              <CopyButton value={link.url}>
                {({ copied, copy }) => (
                  <Button onClick={copy} color={copied ? 'teal' : 'blue'}>
                    {copied ? 'Copied' : 'Copy link'}
                  </Button>
                )}
              </CopyButton>
            </Group>
          </Stack>
        ) : null}
      </Modal>
    </>
  );
}
