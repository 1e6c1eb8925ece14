/**
 * The toast area and the confirmation modals' host mount after the first screen (providers.tsx): their code
 * (Modal, ScrollArea, transitions, about a tenth of the main chunk) is not needed to draw any page, so it is not
 * fetched while the first screen still is (docs/performance.md, "Lighthouse"). They mount when the browser is
 * first idle, or at once when something needs them before that (a confirmation).
 */
type Listener = () => void;

let wanted = false;
const listeners = new Set<Listener>();
let markMounted!: () => void;
const mounted = new Promise<void>((resolve) => (markMounted = resolve));

/** Asks for the overlays now; resolves once the modals' host listens for modals.open… calls. */
export function mountOverlays(): Promise<void> {
  if (!wanted) {
    wanted = true;
    for (const listener of listeners) listener();
  }
  return mounted;
}

/** For providers.tsx: whether the overlays should be mounted, and being told when that changes. */
export const overlaysWanted = () => wanted;
export function onOverlaysWanted(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Called by the modals' host once mounted (its effects, hence @mantine/modals' listeners, have run). */
export const overlaysMounted = () => markMounted();
