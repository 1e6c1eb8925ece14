import { notifications } from '@mantine/notifications';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, cleanup, renderHook, waitFor } from '@testing-library/react';
import type { ReactNode } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { useWrite } from './use-write.ts';

let client: QueryClient;
let shown: { message: unknown; color: unknown }[];

beforeEach(() => {
  client = new QueryClient({ defaultOptions: { mutations: { retry: false } } });
  shown = [];
  vi.spyOn(notifications, 'show').mockImplementation((toast) => {
    shown.push({ message: toast.message, color: toast.color });
    return 'toast';
  });
});
afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

const wrapper = ({ children }: { children: ReactNode }) => <QueryClientProvider client={client}>{children}</QueryClientProvider>;
const refused = () => Promise.reject(new Error('Refused'));

describe('useWrite', () => {
  it("toasts the server's sentence and refreshes the keys on success; the notice wins over the sentence", async () => {
    const invalidate = vi.spyOn(client, 'invalidateQueries');
    const { result } = renderHook(() => useWrite({ write: async (id: number) => ({ message: `Saved ${id}` }), refreshes: (id) => [['things', id]] }), { wrapper });
    await act(() => result.current.mutateAsync(7));
    expect(shown).toEqual([{ message: 'Saved 7', color: 'green' }]);
    expect(invalidate).toHaveBeenCalledWith({ queryKey: ['things', 7] });

    const noticed = renderHook(() => useWrite({ write: async () => ({ message: 'ignored' }), notice: 'Done' }), { wrapper });
    await act(() => noticed.result.current.mutateAsync());
    expect(shown.at(-1)).toEqual({ message: 'Done', color: 'green' });
  });

  it('toasts a failure and refreshes nothing, unless refreshAfterFailure', async () => {
    const invalidate = vi.spyOn(client, 'invalidateQueries');
    const plain = renderHook(() => useWrite({ write: refused, refreshes: () => [['things']] }), { wrapper });
    act(() => plain.result.current.mutate());
    await waitFor(() => expect(plain.result.current.isError).toBe(true));
    expect(shown).toEqual([{ message: 'Refused', color: 'red' }]);
    expect(invalidate).not.toHaveBeenCalled();

    const always = renderHook(() => useWrite({ write: refused, refreshes: () => [['things']], refreshAfterFailure: true }), { wrapper });
    act(() => always.result.current.mutate());
    await waitFor(() => expect(invalidate).toHaveBeenCalledWith({ queryKey: ['things'] }));
  });

  it('leaves to the page the failures it shows itself', async () => {
    const { result } = renderHook(() => useWrite({ write: refused, showsItself: (err) => (err as Error).message === 'Refused' }), { wrapper });
    act(() => result.current.mutate());
    await waitFor(() => expect(result.current.isError).toBe(true));
    expect(shown).toEqual([]);
  });
});
