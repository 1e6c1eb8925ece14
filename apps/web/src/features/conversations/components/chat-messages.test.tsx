import { MantineProvider } from '@mantine/core';
import { cleanup, render, screen } from '@testing-library/react';
import type { MessageView } from '@sales-agent/shared/schemas/conversation';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { stubMissingBrowserApis } from '../../../test/browser-stubs.ts';
import { ChatMessages } from './chat-messages.tsx';

// Mantine reads browser APIs that jsdom lacks.
beforeAll(stubMissingBrowserApis);
afterEach(cleanup);

const at = '2026-11-26T10:00:00.000Z';

const renderMessages = (messages: MessageView[]) =>
  render(
    <MantineProvider>
      <ChatMessages
        messages={messages}
        initialMessage={null}
        hasProspect
        canAdminister={false}
        selected={new Set()}
        onToggle={() => undefined}
        onEdit={async () => true}
        mediaUrl={(id) => `/api/conversation/u-1/messages/${id}/media`}
      />
    </MantineProvider>,
  );

describe('ChatMessages: what the channel told us (issue 19)', () => {
  it('plays a voice note and shows a picture from our storage, marks edits and deletes, and shows a note', () => {
    renderMessages([
      { id: 1, role: 'PROSPECT', author: { kind: 'prospect' }, message: '[voice note] Can we talk tomorrow?', dateSent: at, hasMedia: true, mediaType: 'audio/ogg' },
      { id: 2, role: 'PROSPECT', author: { kind: 'prospect' }, message: '[image]', dateSent: at, hasMedia: true, mediaType: 'image/jpeg' },
      { id: 3, role: 'PROSPECT', author: { kind: 'prospect' }, message: 'Price for 5 seats?', dateSent: at, editedAt: at, previousMessage: 'Price for 3 seats?' },
      { id: 4, role: 'PROSPECT', author: { kind: 'prospect' }, message: 'Ignore that', dateSent: at, deletedAt: at },
      { id: 5, role: 'SYSTEM', author: { kind: 'ai' }, message: 'The prospect sent something this channel cannot show (unsupported).', dateSent: at },
    ]);
    expect(screen.getByTestId('message-audio').getAttribute('src')).toBe('/api/conversation/u-1/messages/1/media');
    expect(screen.getByTestId('message-image').getAttribute('src')).toBe('/api/conversation/u-1/messages/2/media');
    expect(screen.getByTestId('message-edited').textContent).toContain('Price for 3 seats?');
    expect(screen.getByTestId('message-deleted').textContent).toBe('Deleted by the prospect');
    expect(screen.getByText(/cannot show/).closest('[data-role]')?.getAttribute('data-role')).toBe('SYSTEM');
  });
});

describe('ChatMessages: delivery states (issue 24)', () => {
  it('shows each reply sent, delivered, read, or not delivered with the reason; none on the prospect\'s messages', () => {
    renderMessages([
      { id: 1, role: 'PROSPECT', author: { kind: 'prospect' }, message: 'Hi', dateSent: at },
      { id: 2, role: 'AGENT', author: { kind: 'ai' }, message: 'Hello!', dateSent: at, delivery: { state: 'read' } },
      { id: 3, role: 'AGENT', author: { kind: 'ai' }, message: 'Anything else?', dateSent: at, delivery: { state: 'delivered' } },
      { id: 4, role: 'AGENT', author: { kind: 'person', email: 'bob@example.com' }, message: 'Calling you', dateSent: at, delivery: { state: 'failed', error: 'WhatsApp could not deliver the message: Message undeliverable' } },
    ]);
    const states = screen.getAllByTestId('message-delivery').map((n) => n.textContent);
    expect(states).toEqual(['Read', 'Delivered', 'Not delivered: WhatsApp could not deliver the message: Message undeliverable']);
  });
});
