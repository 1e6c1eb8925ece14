-- Custom migration (issue 26, docs/analytics.md): keeps the analytics columns of conversations right on every
-- write path, including manual phase changes and webhooks, without the application writing them.
-- max_phase: the highest phase 0..N ever held; it never goes down (a manual move back keeps "reached").
CREATE OR REPLACE FUNCTION analytics_conversation_max_phase() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' THEN
    NEW.max_phase := greatest(OLD.max_phase, NEW.max_phase);
  END IF;
  IF NEW.phase >= 0 AND NEW.phase < 9999 THEN
    NEW.max_phase := greatest(NEW.max_phase, NEW.phase);
  END IF;
  RETURN NEW;
END $$;--> statement-breakpoint
CREATE TRIGGER conversations_analytics_max_phase BEFORE INSERT OR UPDATE OF phase, max_phase ON conversations
  FOR EACH ROW EXECUTE FUNCTION analytics_conversation_max_phase();--> statement-breakpoint
-- first_prospect_message_at / first_reply_at: one primary-key probe per stored message, a write only for the
-- conversation's first prospect message and its first reply.
CREATE OR REPLACE FUNCTION analytics_message_firsts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.role = 'PROSPECT' THEN
    UPDATE conversations SET first_prospect_message_at = NEW.date_sent
      WHERE id = NEW.conversation_id AND (first_prospect_message_at IS NULL OR first_prospect_message_at > NEW.date_sent);
  ELSIF NEW.role = 'AGENT' THEN
    UPDATE conversations SET first_reply_at = NEW.date_sent, first_reply_by_human = NEW.written_by_human
      WHERE id = NEW.conversation_id AND first_reply_at IS NULL
        AND first_prospect_message_at IS NOT NULL AND first_prospect_message_at <= NEW.date_sent;
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER messages_analytics_firsts AFTER INSERT ON messages
  FOR EACH ROW EXECUTE FUNCTION analytics_message_firsts();--> statement-breakpoint
-- Backfill, once: what the stored data allows (the phase history before this migration is only the current phase).
UPDATE conversations SET max_phase = phase WHERE phase >= 0 AND phase < 9999;--> statement-breakpoint
UPDATE conversations c SET first_prospect_message_at = m.first
  FROM (SELECT conversation_id, min(date_sent) AS first FROM messages WHERE role = 'PROSPECT' GROUP BY conversation_id) m
  WHERE m.conversation_id = c.id;--> statement-breakpoint
UPDATE conversations c SET first_reply_at = r.date_sent, first_reply_by_human = r.written_by_human
  FROM (
    SELECT DISTINCT ON (m.conversation_id) m.conversation_id, m.date_sent, m.written_by_human
    FROM messages m JOIN conversations c2 ON c2.id = m.conversation_id
    WHERE m.role = 'AGENT' AND c2.first_prospect_message_at IS NOT NULL AND m.date_sent >= c2.first_prospect_message_at
    ORDER BY m.conversation_id, m.date_sent, m.id
  ) r
  WHERE r.conversation_id = c.id;
