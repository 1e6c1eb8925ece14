import { Alert, Button, Group, Stack, Text } from '@mantine/core';
import type { ConversationDetail } from '@sales-agent/shared/schemas/conversation';
import { useQuery } from '@tanstack/react-query';
import type { RefObject } from 'react';
import { Link } from 'react-router';
import { paths } from '../../../config/paths.ts';
import { useAuth } from '../../../lib/auth.ts';
import { cannedRepliesQuery } from '../api/canned-replies.ts';
import { useSendMessage } from '../api/conversation-changes.ts';
import { MessageBox } from './message-box.tsx';

/** What a visitor reads when the playbook has ended (issue 12: a notice and what happens next, not silence). */
export const CLOSING_TITLE = 'This conversation has ended';
export const CLOSING_TEXT =
  'Thank you for your time. Everything you wrote stays with our team, and someone will get back to you if a next step was agreed. To ask something else, start a new conversation.';

/**
 * Where a reply is written: the message box, or for an ended web chat the closing notice and a way to start
 * again. Null when the view is read-only.
 */
export function ConversationReply(props: {
  conversation: ConversationDetail;
  viewOnly?: boolean;
  replyRef?: RefObject<HTMLTextAreaElement | null>;
  newConversationHref?: string;
}) {
  const { conversation: c } = props;
  const send = useSendMessage(c.uuid);
  // The team's canned replies, for a teammate answering a prospect (the "/" menu); never asked for a visitor.
  const teammate = useAuth().isAuthenticated && c.Prospect !== null && !props.viewOnly;
  const canned = useQuery({ ...cannedRepliesQuery(), enabled: teammate });
  if (c.ended && c.Prospect === null) {
    return (
      <Alert color="blue" title={CLOSING_TITLE} data-testid="closing-notice" role="status">
        <Stack gap="xs">
          <Text size="sm">{CLOSING_TEXT}</Text>
          <Group>
            <Button
              component={Link}
              to={
                props.newConversationHref ??
                (c.conversationTypeId ? `${paths.conversationNew}?conversationType=${c.conversationTypeId}` : paths.conversationNew)
              }
              size="xs"
            >
              Start a new conversation
            </Button>
          </Group>
        </Stack>
      </Alert>
    );
  }
  if (props.viewOnly) return null;
  return (
    <MessageBox
      // One box per conversation: the inbox switching conversations never carries text from one to another.
      key={c.uuid}
      draftKey={c.uuid}
      label="Message"
      // The box keeps the text unless the send worked; the hook has shown the error.
      onSend={(text) =>
        send.mutateAsync(text).then(
          () => true,
          () => false,
        )
      }
      inputRef={props.replyRef}
      shortcuts={teammate ? canned.data : undefined}
      placeholder={
        c.Prospect ? 'Reply as the business… (Enter sends; this pauses the AI; / lists canned replies)' : 'Write a message… (Enter sends, Shift+Enter adds a line)'
      }
    />
  );
}
