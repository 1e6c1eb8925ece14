import { fireEvent, screen } from '@testing-library/react';
import { expect, it, vi } from 'vitest';
import { renderApp } from '../../../test/render-app.tsx';
import { json } from '../../../test/stub-fetch.ts';
import { ConversationTypeForm, toFormValues } from './conversation-type-form.tsx';

/** Issue 24: the public title (what visitors see instead of the internal title) is a field of the form. */
const setup = (publicTitle: string | null) => {
  vi.stubGlobal('fetch', vi.fn(async () => json([])));
  const onSubmit = vi.fn();
  const initial = { ...toFormValues(), rolePrompt: 'You sell roofs.', errorPrompt: 'Sorry.', publicTitle: publicTitle ?? '' };
  renderApp(<ConversationTypeForm initial={initial} onSubmit={onSubmit} saving={false} />);
  return onSubmit;
};

it('shows the public title with its help and submits what is typed', () => {
  const onSubmit = setup('Talk to Sunny Roofs');
  const field = screen.getByLabelText('Public title') as HTMLInputElement;
  expect(field.value).toBe('Talk to Sunny Roofs');
  expect(screen.getByText(/What visitors and prospects see, e.g. "Talk to Sunny Roofs": the chat's name, and this type's name on the start page/)).toBeTruthy();
  fireEvent.change(field, { target: { value: 'Ask Sunny Roofs' } });
  fireEvent.click(screen.getByRole('button', { name: 'Save' }));
  expect(onSubmit).toHaveBeenCalledWith(expect.objectContaining({ publicTitle: 'Ask Sunny Roofs' }));
});

it('refuses a public title over 80 characters with a sentence, not saving', () => {
  const onSubmit = setup(null);
  fireEvent.change(screen.getByLabelText('Public title'), { target: { value: 'x'.repeat(81) } });
  fireEvent.click(screen.getByRole('button', { name: 'Save' }));
  expect(screen.getByText('Public title must be at most 80 characters')).toBeTruthy();
  expect(onSubmit).not.toHaveBeenCalled();
});

it('reads an existing type’s public title into the form (empty when it has none)', () => {
  expect(toFormValues({ publicTitle: 'Chat with us' } as Parameters<typeof toFormValues>[0]).publicTitle).toBe('Chat with us');
  expect(toFormValues().publicTitle).toBe('');
});
