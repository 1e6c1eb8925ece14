import { Anchor, Box, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { messagePassagesQuery } from '../api/knowledge.ts';

/**
 * Under an agent message, for an ADMIN: the knowledge passages its draft was written from (source, title,
 * link), folded so the thread stays readable. Nothing shows for a message written without knowledge.
 */
export function MessageSources(props: { conversationUuid: string; messageCount: number; messageId: number }) {
  const query = useQuery(messagePassagesQuery(props.conversationUuid, props.messageCount));
  const passages = query.data?.passages[String(props.messageId)];
  if (!passages?.length) return null;
  return (
    <Box component="details" mt={4} data-testid="message-sources">
      <Box component="summary" style={{ cursor: 'pointer' }}>
        <Text span size="xs" c="dimmed">
          Sources used ({passages.length})
        </Text>
      </Box>
      {passages.map((p, i) => (
        <Text key={i} size="xs" mt={2}>
          [{i + 1}]{' '}
          {p.url ? (
            <Anchor href={p.url} target="_blank" rel="noreferrer" size="xs">
              {p.title ?? p.url}
            </Anchor>
          ) : (
            <b>{p.title ?? `Source ${p.sourceId}`}</b>
          )}
          : {p.text.length > 200 ? `${p.text.slice(0, 200)}…` : p.text}
        </Text>
      ))}
    </Box>
  );
}
