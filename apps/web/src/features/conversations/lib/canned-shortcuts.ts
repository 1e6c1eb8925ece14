/** A saved reply as the composer offers it: typed as "/" + shortcut at the start of the box (issue 24). */
export type Shortcut = { shortcut: string; text: string };

/**
 * The replies the "/" menu lists for what is in the box: only while the box holds "/" and a start of a shortcut
 * (no space yet), those whose shortcut starts with it first, then those that contain it. Null: no menu.
 */
export function matchShortcuts(value: string, replies: readonly Shortcut[]): Shortcut[] | null {
  const typed = /^\/([^\s/]*)$/.exec(value);
  if (!typed) return null;
  const word = typed[1]!.toLowerCase();
  const starts = replies.filter((r) => r.shortcut.startsWith(word));
  const contains = replies.filter((r) => !r.shortcut.startsWith(word) && (r.shortcut.includes(word) || r.text.toLowerCase().includes(word)));
  return [...starts, ...contains];
}
