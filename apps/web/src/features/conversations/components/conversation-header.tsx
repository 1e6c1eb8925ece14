import { Badge, Group, Stack, Text, Title } from '@mantine/core';
import { phaseLabel } from '@sales-agent/shared/enums';
import type { ConversationDetail } from '@sales-agent/shared/schemas/conversation';
import { ChannelBadge } from '../../../components/channel-badge.tsx';
import { AI_STATE_TEXT, aiState, phaseWords } from '../lib/phase-words.ts';
import { CallStatus } from './call-status.tsx';
import { HandOff } from './hand-off.tsx';
import { DoNotContact } from './do-not-contact.tsx';
import { WhatsAppOptIn } from './whatsapp-opt-in.tsx';
import { conversationName } from './inbox-row.tsx';
import { WorkspaceControls } from './workspace-controls.tsx';

/**
 * Who the conversation is with and where it stands: the prospect (or web chat), the type, and for the team
 * the phase, the AI's state, the channel and the hand-off buttons; then the call, if there is one.
 */
export function ConversationHeader({ conversation: c, mode }: { conversation: ConversationDetail; mode: 'page' | 'pane' }) {
  const admin = c.canAdminister;
  const state = aiState(c);
  // A visitor reads the type's public title (the server sends it); "Type 12" and "No type" are the team's words.
  const typeTitle = admin ? (c.ConversationType?.title ?? (c.conversationTypeId ? `Type ${c.conversationTypeId}` : 'No type')) : (c.ConversationType?.title ?? 'Chat');
  return (
    <Stack gap="xs">
      {mode === 'pane' && (
        <Title order={2} fz="h4" data-testid="conversation-heading">
          {conversationName(c)}
        </Title>
      )}
      {c.Prospect && mode === 'page' && (
        <Text data-testid="prospect" size="sm">
          Prospect:{' '}
          {(c.Prospect.name ?? c.Prospect.phone) && (
            <Text span fw={600} data-testid="prospect-name">
              {c.Prospect.name ?? c.Prospect.phone}
            </Text>
          )}{' '}
          <Text span c="dimmed" ff="monospace" size="xs">
            {c.Prospect.uuid}
          </Text>
        </Text>
      )}
      <Group gap="xs">
        <Badge variant="light">{typeTitle}</Badge>
        {admin && c.typeVersion != null && (
          <Badge variant="outline" color="gray" data-testid="type-version" title="The playbook version this conversation started on">
            {`v${c.typeVersion}`}
          </Badge>
        )}
        {/* Visitors see no phase codes or internal labels (issue 12); the team does. */}
        {admin && (
          <Badge variant="outline" data-testid="phase-badge" title={phaseWords(c.phase, c.phaseCount)}>
            {phaseBadgeText(c.phase, c.phaseCount)}
          </Badge>
        )}
        {admin && c.Prospect && (
          <Badge color={AI_STATE_TEXT[state].color} variant="light" data-testid="ai-state">
            {AI_STATE_TEXT[state].label}
          </Badge>
        )}
        {admin && c.isDemoAgent && (
          <Badge color="orange" variant="light">
            Demo agent (offline)
          </Badge>
        )}
        {admin && <ChannelBadge type={c.Prospect?.messagingAccount.type} size="md" />}
        {admin && c.Prospect && (
          <Badge color="grape" variant="light" title="The messaging account the prospect wrote to">
            {c.Prospect.messagingAccount.pageName}
          </Badge>
        )}
      </Group>
      {admin && c.Prospect && <HandOff conversation={c} />}
      {admin && <WorkspaceControls conversation={c} />}
      <DoNotContact conversation={c} canClear={admin} />
      {admin && c.Prospect && <WhatsAppOptIn conversation={c} />}
      <CallStatus uuid={c.uuid} />
    </Stack>
  );
}

/** 'Phase 1' for a working phase; 'Phase -2: Needs human intervention' etc. for the special codes. */
export function phaseBadgeText(phase: number, phaseCount: number): string {
  const label = phaseLabel(phase, phaseCount);
  return label === `Phase ${phase}` ? label : `Phase ${phase}: ${label}`;
}
