import { z } from 'zod';

/** The body of every error answer (DESIGN.md §5). */
export const errorBody = z.object({ error: z.string(), code: z.string() });
export type ErrorBody = z.infer<typeof errorBody>;

/** A positive integer id taken from a path or query string. */
export const idParam = z.coerce.number().int().positive();
export const idParams = z.object({ id: idParam });

export const messageBody = z.object({ message: z.string() });
