import { Box } from '@mantine/core';
import { useParams, useSearchParams } from 'react-router';
import { PageTitle } from '../../../components/page-title.tsx';
import { ConversationView } from '../components/conversation-view.tsx';

/**
 * Spec §2.13 conversation detail (/conversation/{uuid}, open to anyone with the uuid): for a visitor this is
 * the web chat, its message box pinned to the bottom of the screen; viewOnly=true hides the send box.
 */
export default function ConversationDetailPage() {
  // Also the website widget's frame, /embed/{typeId}/conversation/{uuid} (app/embed.tsx).
  const { uuid = '', typeId } = useParams();
  const [searchParams] = useSearchParams();
  const viewOnly = searchParams.get('viewOnly') === 'true';
  return (
    <Box maw={900} mx="auto">
      <PageTitle>Conversation</PageTitle>
      <ConversationView uuid={uuid} mode="page" viewOnly={viewOnly} newConversationHref={typeId ? `/embed/${typeId}` : undefined} />
    </Box>
  );
}
