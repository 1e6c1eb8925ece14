import type { ContactsCursor } from '../api/crm-contacts.ts';

/**
 * Cursor paging of the contacts page (spec §4, §5). GoHighLevel pages forward only, so the cursor that
 * opened each page is stored: Next opens the page after the answer's cursor, Previous re-opens the stored
 * earlier one. `cursors[i]` opened page i + 1 (page 1 has none).
 */
export interface ContactsPaging {
  cursors: (ContactsCursor | null)[];
}

export interface ContactsMeta {
  total: number;
  startAfter: number | string | null;
  startAfterId: string | null;
}

/** Page 1: where every change of pipeline, stage or page size starts again. */
export const firstPage = (): ContactsPaging => ({ cursors: [null] });

export const pageNumber = (paging: ContactsPaging) => paging.cursors.length;

export const currentCursor = (paging: ContactsPaging) => paging.cursors[paging.cursors.length - 1] ?? null;

/** 'M' of 'N of M': at least 1, so an empty stage reads '1 of 1'. */
export const pageCount = (total: number, limit: number) => Math.max(1, Math.ceil(total / limit));

/** Next is possible when the answer carries a cursor and this is not the last page by the total. */
export function hasNextPage(paging: ContactsPaging, meta: ContactsMeta | undefined, limit: number): boolean {
  if (!meta || meta.startAfter === null || meta.startAfter === '' || !meta.startAfterId) return false;
  return pageNumber(paging) < pageCount(meta.total, limit);
}

export function nextPage(paging: ContactsPaging, meta: ContactsMeta): ContactsPaging {
  if (meta.startAfter === null || !meta.startAfterId) return paging;
  return { cursors: [...paging.cursors, { startAfter: String(meta.startAfter), startAfterId: meta.startAfterId }] };
}

export const hasPreviousPage = (paging: ContactsPaging) => paging.cursors.length > 1;

export const previousPage = (paging: ContactsPaging): ContactsPaging =>
  hasPreviousPage(paging) ? { cursors: paging.cursors.slice(0, -1) } : paging;
