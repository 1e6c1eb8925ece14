/** Cuts `text` to `max` characters, marking the cut with an ellipsis inside the limit. */
export function truncate(text: string | null | undefined, max: number): string {
  const value = text ?? '';
  if (value.length <= max) return value;
  return `${value.slice(0, Math.max(0, max - 1))}…`;
}
