import { Alert, Anchor, Box, Button, Center, Group, Loader, Stack, Text } from '@mantine/core';
import { isUuid } from '@sales-agent/shared/uuid';
import { IconRefresh } from '@tabler/icons-react';
import { useEffect, useRef, useState } from 'react';
import { Outlet, useNavigate, useParams, useSearchParams } from 'react-router';
import { errorMessage } from '../lib/api-client.ts';
import { startConversation } from '../features/conversations/api/conversations.ts';

/**
 * The chat as the website widget (public/widget.js) shows it in an iframe on another site: no header or
 * footer, the conversation only. The visitor's conversation uuid is kept in this origin's localStorage, so it
 * survives page loads on the host site (and works without third-party cookies: the uuid is the capability).
 */
export const embedPaths = {
  start: (typeId: string) => `/embed/${typeId}`,
  conversation: (typeId: string, uuid: string) => `/embed/${typeId}/conversation/${uuid}`,
};

const storageKey = (typeId: string) => `sales-agent-widget:${typeId}`;

/**
 * Tells the widget script on the host page which conversation is open (null: forget it). Browsers that block
 * storage in third-party frames (Chromium's third-party storage blocking, Safari) lose this frame's
 * localStorage, so the widget keeps the uuid in the host site's storage and hands it back as ?resume=.
 * Only a uuid the host page already knows or that was just created for it is posted, never one read from
 * this frame's storage, so a foreign page framing /embed cannot learn another site's visitor's conversation.
 */
function tellHost(typeId: string, uuid: string | null): void {
  if (window.parent === window) return;
  window.parent.postMessage({ source: 'sales-agent-widget', type: 'conversation', typeId, uuid }, '*');
}

function readStored(typeId: string): string | null {
  try {
    return localStorage.getItem(storageKey(typeId));
  } catch {
    // Storage can be blocked for framed pages (some privacy settings): the chat still works, without resuming.
    return null;
  }
}

function store(typeId: string, uuid: string | null): void {
  try {
    if (uuid) localStorage.setItem(storageKey(typeId), uuid);
    else localStorage.removeItem(storageKey(typeId));
  } catch {
    /* see readStored */
  }
}

/**
 * Escape closes the widget from inside the chat too (issue 24): keys typed in this frame never reach the host
 * page's listener, so the frame asks the widget script to close. A key a control of the chat already used (a
 * menu or list closing) is left to it.
 */
function useEscapeClosesWidget(typeId: string): void {
  useEffect(() => {
    if (window.parent === window) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== 'Escape' || event.defaultPrevented) return;
      window.parent.postMessage({ source: 'sales-agent-widget', type: 'close', typeId }, '*');
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [typeId]);
}

export function EmbedLayout() {
  const { typeId = '' } = useParams();
  const navigate = useNavigate();
  useEscapeClosesWidget(typeId);
  const restart = () => {
    store(typeId, null);
    tellHost(typeId, null);
    navigate(embedPaths.start(typeId), { replace: true });
  };
  return (
    // The frame's height, the chat scrolling inside it: the footer (New conversation) stays in view however long
    // the conversation grows, with the message box pinned just above it (issue 24).
    <Box style={{ height: '100dvh', display: 'flex', flexDirection: 'column' }}>
      <Box component="main" p="sm" style={{ flex: 1, minHeight: 0, overflowY: 'auto' }} data-testid="embed-main">
        <Outlet />
      </Box>
      <Group justify="space-between" px="sm" py={6} style={{ flex: 'none', borderTop: '1px solid var(--mantine-color-default-border)' }} data-testid="embed-footer">
        <Button variant="subtle" size="compact-sm" leftSection={<IconRefresh size={16} aria-hidden />} onClick={restart}>
          New conversation
        </Button>
        <Text size="xs" c="dimmed">
          Powered by{' '}
          <Anchor href="/" target="_blank" rel="noreferrer" size="xs">
            Sales Agent
          </Anchor>
        </Text>
      </Group>
    </Box>
  );
}

/** /embed/{typeId}[?resume={uuid}]: resumes the host's or the stored conversation of this type, or starts one. */
export function EmbedStartPage() {
  const { typeId = '' } = useParams();
  const [searchParams] = useSearchParams();
  const resume = searchParams.get('resume');
  const navigate = useNavigate();
  const [error, setError] = useState<string | null>(null);
  const started = useRef(false);

  useEffect(() => {
    // StrictMode runs effects twice in development; one visitor must get one conversation.
    if (started.current) return;
    started.current = true;
    if (isUuid(resume)) {
      store(typeId, resume);
      navigate(embedPaths.conversation(typeId, resume), { replace: true });
      return;
    }
    const stored = readStored(typeId);
    if (stored) {
      navigate(embedPaths.conversation(typeId, stored), { replace: true });
      return;
    }
    const id = Number(typeId);
    if (!Number.isInteger(id) || id <= 0) {
      setError('This chat is not set up correctly: data-conversation-type must be the id of a conversation type.');
      return;
    }
    startConversation(id)
      .then(({ uuid }) => {
        store(typeId, uuid);
        tellHost(typeId, uuid);
        navigate(embedPaths.conversation(typeId, uuid), { replace: true });
      })
      .catch((err) => setError(errorMessage(err)));
  }, [typeId, resume, navigate]);

  if (error) {
    return (
      <Stack>
        <h1 style={{ fontSize: 'var(--mantine-font-size-lg)', margin: 0 }}>Chat</h1>
        <Alert color="red" title="The chat could not start">
          {error}
        </Alert>
      </Stack>
    );
  }
  return (
    <Center py="xl">
      <Loader aria-label="Starting the chat" />
    </Center>
  );
}
