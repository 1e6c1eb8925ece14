import type { ErrorCode } from '@sales-agent/shared/error-codes';

/**
 * The one error type services throw. The error handler (plugins/error-handler.ts) turns it into
 * `{ error, code }` with `status` (DESIGN.md §5). `code` is one of the shared list (docs/api-errors.md).
 */
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    /**
     * What a team member (not an ADMIN) reads instead (issue 24): instructions for whoever runs the server
     * ("Set OPENAI_API_KEY …") are for admins; a member is told to ask their admin.
     */
    readonly memberMessage?: string,
  ) {
    super(message);
    this.name = 'AppError';
  }
}

/** "<feature> is not set up on this server yet. Ask your admin." — a member's side of a configuration error. */
export const askYourAdmin = (feature: string) => `${feature} is not set up on this server yet. Ask your admin.`;

export const badRequest = (message: string, code: ErrorCode = 'BAD_REQUEST') => new AppError(400, code, message);
export const unauthorized = (message = 'You need to log in first.') => new AppError(401, 'UNAUTHORIZED', message);
export const forbidden = (message = 'You do not have permission to do this.') =>
  new AppError(403, 'FORBIDDEN', message);
export const notFound = (message: string, code: ErrorCode = 'NOT_FOUND') => new AppError(404, code, message);
export const conflict = (message: string, code: ErrorCode = 'CONFLICT') => new AppError(409, code, message);
export const unavailable = (message: string, code: ErrorCode = 'SERVICE_UNAVAILABLE', memberMessage?: string) => new AppError(503, code, message, memberMessage);
