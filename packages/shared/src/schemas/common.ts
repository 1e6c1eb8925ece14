import { z } from 'zod';

/** The body of every error answer (DESIGN.md §5). */
export const errorBody = z.object({ error: z.string(), code: z.string() });
export type ErrorBody = z.infer<typeof errorBody>;

/** The largest id PostgreSQL's `integer` (serial) columns hold; a larger one matches nothing and must not reach SQL. */
export const INT4_MAX = 2_147_483_647;

/** A positive integer id taken from a path or query string. */
export const idParam = z.coerce.number().int().positive().max(INT4_MAX, 'no such id');
export const idParams = z.object({ id: idParam });

/**
 * True for an ISO date or date-time PostgreSQL can store: the ISO pattern allows year 0000, which JavaScript
 * dates accept but PostgreSQL's timestamp (which has no year 0) refuses.
 */
export const isStorableInstant = (value: string) => new Date(value).getUTCFullYear() >= 1;

export const messageBody = z.object({ message: z.string() });
