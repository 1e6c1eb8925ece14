/**
 * What a person has typed but not sent, per conversation (issue 18): kept across the message box unmounting
 * (a failed refresh, another conversation opened in the inbox and back) and across a page reload, in this
 * tab's sessionStorage under the conversation's uuid. Cleared once the message is sent. Storage can be
 * missing or refused (a widget frame with third-party storage blocked, a full quota): a copy in memory then
 * still keeps the draft for as long as the page lives.
 */
const PREFIX = 'sales-agent:draft:';
const memory = new Map<string, string>();

function storage(): Storage | null {
  try {
    return typeof sessionStorage === 'undefined' ? null : sessionStorage;
  } catch {
    return null;
  }
}

export function readDraft(uuid: string): string {
  const kept = memory.get(uuid);
  if (kept !== undefined) return kept;
  try {
    return storage()?.getItem(PREFIX + uuid) ?? '';
  } catch {
    return '';
  }
}

/** Keeps `text` as the draft of `uuid`; a blank text forgets it. */
export function writeDraft(uuid: string, text: string): void {
  if (!text.trim()) {
    clearDraft(uuid);
    return;
  }
  memory.set(uuid, text);
  try {
    storage()?.setItem(PREFIX + uuid, text);
  } catch {
    // Quota or a refused storage: the copy in memory keeps it for this page.
  }
}

export function clearDraft(uuid: string): void {
  memory.delete(uuid);
  try {
    storage()?.removeItem(PREFIX + uuid);
  } catch {
    // Nothing was stored.
  }
}
