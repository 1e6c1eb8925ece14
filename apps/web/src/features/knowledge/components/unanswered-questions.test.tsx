import { fireEvent, screen, waitFor } from '@testing-library/react';
import { expect, it, vi } from 'vitest';
import { renderApp } from '../../../test/render-app.tsx';
import { json } from '../../../test/stub-fetch.ts';
import { UnansweredQuestions } from './unanswered-questions.tsx';

const GROUP = {
  key: 'norway ship',
  question: 'Do you ship to Norway?',
  count: 3,
  lastAskedAt: '2026-11-26T10:00:00.000Z',
  conversations: [{ uuid: '11111111-1111-4111-8111-111111111111', typeTitle: 'Shop' }],
  conversationTypeIds: [1],
};

it('lists grouped questions with their conversations and turns one into an FAQ entry', async () => {
  let open = [GROUP];
  const posts: unknown[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init?: RequestInit) => {
      if (url === '/api/admin/knowledge/questions') return json({ groups: open });
      if (url === '/api/admin/knowledge/questions/faq') {
        posts.push(JSON.parse(String(init?.body)));
        open = [];
        return json({ id: 9, resolved: 3 }, 201);
      }
      return json({}, 404);
    }),
  );
  renderApp(<UnansweredQuestions collections={[{ id: 4, name: 'Shop facts', sources: 1, chunks: 1, createdAt: '2026-11-26T10:00:00.000Z' }]} />);
  expect(await screen.findByText('Do you ship to Norway?')).toBeTruthy();
  expect(screen.getByText('asked 3×')).toBeTruthy();
  expect(screen.getByRole('link', { name: 'conversation 1 (Shop)' }).getAttribute('href')).toBe('/conversation/11111111-1111-4111-8111-111111111111');

  fireEvent.click(screen.getByRole('button', { name: 'Add as FAQ' }));
  fireEvent.change(screen.getByRole('textbox', { name: 'Answer' }), { target: { value: 'Yes, within 5 days.' } });
  fireEvent.click(screen.getByRole('button', { name: 'Save FAQ entry' }));
  await waitFor(() => expect(posts).toEqual([{ key: 'norway ship', collectionId: 4, question: 'Do you ship to Norway?', answer: 'Yes, within 5 days.' }]));
  expect(await screen.findByText('No unanswered questions.')).toBeTruthy();
});
