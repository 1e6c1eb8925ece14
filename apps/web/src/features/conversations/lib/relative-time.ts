/**
 * "just now", "5 min ago", "3 h ago", "yesterday", then a short date: what a chat shows next to a message
 * (issue 12); the full date and time go in a title attribute.
 */
export function relativeTime(iso: string, now = Date.now()): string {
  const date = new Date(iso);
  const seconds = Math.round((now - date.getTime()) / 1000);
  if (seconds < 45) return 'just now';
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 24) return `${hours} h ago`;
  const days = Math.round(hours / 24);
  if (days === 1) return 'yesterday';
  if (days < 7) return `${days} days ago`;
  const sameYear = date.getFullYear() === new Date(now).getFullYear();
  return date.toLocaleDateString(undefined, { day: 'numeric', month: 'short', ...(sameYear ? {} : { year: 'numeric' }) });
}

/** The full local date and time, for title attributes. */
export const fullDate = (iso: string) => new Date(iso).toLocaleString();
