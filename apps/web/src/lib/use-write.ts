import { type QueryKey, useMutation, useQueryClient } from '@tanstack/react-query';
import { toastError, toastSuccess } from './toast.ts';

/**
 * A write as the app does them all (issue 20): on success a toast (`notice`, else the server's `message`) and a
 * refresh of `refreshes` (query-key factory keys; each prefix refreshes what is under it); on failure the
 * error's toast, in words. The features' mutation hooks are built on it; components call `mutate()`.
 */
export function useWrite<TVars, TResult extends { message?: string }>(options: {
  write: (vars: TVars) => Promise<TResult>;
  refreshes: (vars: TVars) => readonly QueryKey[];
  notice?: string;
}) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: options.write,
    onSuccess: async (result, vars) => {
      const notice = options.notice ?? result.message;
      if (notice) toastSuccess(notice);
      await Promise.all(options.refreshes(vars).map((queryKey) => client.invalidateQueries({ queryKey })));
    },
    onError: (err) => toastError(err),
  });
}
