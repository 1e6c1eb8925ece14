import { type QueryKey, useMutation, useQueryClient } from '@tanstack/react-query';
import { toastError, toastSuccess } from './toast.ts';

/**
 * A write as the app does them all (issue 20): on success a toast (`notice`, else the server's `message`) and a
 * refresh of `refreshes`, if any (query-key factory keys; each prefix refreshes what is under it); on failure the
 * error's toast, in words. The features' mutation hooks are built on it; components call `mutate()`.
 */
export function useWrite<TVars, TResult>(options: {
  write: (vars: TVars) => Promise<TResult>;
  refreshes?: (vars: TVars) => readonly QueryKey[];
  /** Refresh after a failure too (the row may be gone already, or changed by someone else). */
  refreshAfterFailure?: boolean;
  notice?: string;
  /** Failures the page shows in its own way (true: no toast), e.g. a refusal shown as an alert. */
  showsItself?: (err: unknown) => boolean;
}) {
  const client = useQueryClient();
  const refresh = (vars: TVars) => Promise.all((options.refreshes?.(vars) ?? []).map((queryKey) => client.invalidateQueries({ queryKey })));
  return useMutation({
    mutationFn: options.write,
    onSuccess: async (result, vars) => {
      const notice = options.notice ?? serverNotice(result);
      if (notice) toastSuccess(notice);
      await refresh(vars);
    },
    onError: async (err, vars) => {
      if (!options.showsItself?.(err)) toastError(err);
      if (options.refreshAfterFailure) await refresh(vars);
    },
  });
}

/** The server's sentence for a write, when its answer has one (`{ message }`). */
function serverNotice(result: unknown): string | undefined {
  const message = (result as { message?: unknown } | null)?.message;
  return typeof message === 'string' ? message : undefined;
}
