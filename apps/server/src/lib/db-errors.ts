/** A database error (drizzle wraps the driver's in `cause`) raised by the named unique index. */
export function isUniqueViolation(err: unknown, constraint: string): boolean {
  for (let e = err; e && typeof e === 'object'; e = (e as { cause?: unknown }).cause) {
    const { code, constraint: name } = e as { code?: unknown; constraint?: unknown };
    if (code === '23505') return name === constraint;
  }
  return false;
}
