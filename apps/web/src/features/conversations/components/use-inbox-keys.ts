import type { ConversationDetail } from '@sales-agent/shared/schemas/conversation';
import { type RefObject, useEffect } from 'react';
import { useHandBack, useTakeOver } from '../api/conversation-changes.ts';

/**
 * The inbox's keyboard (issue 12): j/k or the arrows move through conversations, r focuses the reply, t takes
 * over, h hands back to the AI. Keys typed into a field are the field's; Escape leaves the reply box.
 */
export function useInboxKeys(props: {
  move(step: number): void;
  replyRef: RefObject<HTMLTextAreaElement | null>;
  /** The open conversation, once loaded. */
  open: ConversationDetail | undefined;
}) {
  const { move, replyRef, open } = props;
  const takeOver = useTakeOver();
  const handBack = useHandBack();
  const takeOverNow = takeOver.mutate;
  const handBackNow = handBack.mutate;
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey) return;
      const target = e.target as HTMLElement | null;
      const typing = target && (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName));
      if (typing) {
        // Escape leaves the reply box so the shortcuts work again.
        if (e.key === 'Escape' && target === replyRef.current) replyRef.current?.blur();
        return;
      }
      if (document.querySelector('[role="dialog"]')) return;
      const c = open;
      if (e.key === 'j' || e.key === 'ArrowDown') {
        e.preventDefault();
        move(1);
      } else if (e.key === 'k' || e.key === 'ArrowUp') {
        e.preventDefault();
        move(-1);
      } else if (e.key === 'r' && replyRef.current) {
        e.preventDefault();
        replyRef.current.focus();
      } else if ((e.key === 'h' || e.key === 't') && c?.canAdminister && c.Prospect) {
        e.preventDefault();
        if (e.key === 'h') handBackNow({ conversation: c });
        else takeOverNow({ conversation: c });
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [move, open, replyRef, takeOverNow, handBackNow]);
}
