-- Custom migration (issue 26, docs/analytics.md "Hand-offs", "Follow-ups"): keeps handoffs.answered_at and
-- follow_ups.replied_at on every write path that stores a message (the team's replies, channel webhooks, echoes
-- of replies written in the channel's own inbox), without the application writing them.
-- A person's message (AGENT, written_by_human) answers the conversation's open hand-off; on a conversation whose
-- AI was not paused and that had no open hand-off, it is itself a take-over, answered at once.
CREATE OR REPLACE FUNCTION analytics_message_handoff() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE handoffs SET answered_at = NEW.date_sent
    WHERE conversation_id = NEW.conversation_id AND answered_at IS NULL AND handed_at <= NEW.date_sent;
  IF NOT FOUND
     AND NOT EXISTS (SELECT 1 FROM handoffs WHERE conversation_id = NEW.conversation_id AND answered_at IS NULL)
     AND EXISTS (SELECT 1 FROM conversations WHERE id = NEW.conversation_id AND NOT ai_paused) THEN
    INSERT INTO handoffs (conversation_id, reason, handed_at, answered_at)
      VALUES (NEW.conversation_id, 'TAKEN_OVER', NEW.date_sent, NEW.date_sent);
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER messages_analytics_handoffs AFTER INSERT ON messages
  FOR EACH ROW WHEN (NEW.role = 'AGENT' AND NEW.written_by_human) EXECUTE FUNCTION analytics_message_handoff();--> statement-breakpoint
-- A prospect's message brings back the conversation's latest follow-up before it (and only that one: an earlier
-- follow-up was followed by another without a reply). One index probe per prospect message.
CREATE OR REPLACE FUNCTION analytics_message_follow_up_reply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE follow_ups SET replied_at = NEW.date_sent
    WHERE id = (SELECT f.id FROM follow_ups f WHERE f.conversation_id = NEW.conversation_id AND f.sent_at < NEW.date_sent
                ORDER BY f.sent_at DESC, f.id DESC LIMIT 1)
      AND replied_at IS NULL;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER messages_analytics_follow_ups AFTER INSERT ON messages
  FOR EACH ROW WHEN (NEW.role = 'PROSPECT') EXECUTE FUNCTION analytics_message_follow_up_reply();--> statement-breakpoint
-- Backfill, once, from what is stored: the agent's hand-off errors in the unanswered list (an unreadable errors
-- text is skipped), then a take-over at the first message a person wrote on a conversation without one.
-- Follow-ups sent before this migration are not marked anywhere, so they are not counted.
DO $$
DECLARE r record; e jsonb;
BEGIN
  FOR r IN SELECT conversation_id, errors FROM unanswered_conversations WHERE errors <> '[]' LOOP
    BEGIN
      FOR e IN SELECT value FROM jsonb_array_elements(r.errors::jsonb) LOOP
        IF e->>'type' = 'agent' AND e->>'code' IN ('HUMAN_REQUESTED', 'NOT_IN_KNOWLEDGE', 'GUARD_FAILED', 'NO_LLM') THEN
          INSERT INTO handoffs (conversation_id, reason, handed_at)
            VALUES (r.conversation_id, e->>'code', coalesce((e->>'at')::timestamptz, now()));
        END IF;
      END LOOP;
    EXCEPTION WHEN others THEN NULL;
    END;
  END LOOP;
END $$;--> statement-breakpoint
UPDATE handoffs h SET answered_at = (
  SELECT min(m.date_sent) FROM messages m
  WHERE m.conversation_id = h.conversation_id AND m.role = 'AGENT' AND m.written_by_human AND m.date_sent >= h.handed_at);--> statement-breakpoint
INSERT INTO handoffs (conversation_id, reason, handed_at, answered_at)
  SELECT m.conversation_id, 'TAKEN_OVER', min(m.date_sent), min(m.date_sent) FROM messages m
  WHERE m.role = 'AGENT' AND m.written_by_human
    AND NOT EXISTS (SELECT 1 FROM handoffs h WHERE h.conversation_id = m.conversation_id)
  GROUP BY m.conversation_id;
