-- Custom migration (issue 24, docs/workspace.md "Search"): keeps conversation_search.doc, the one search document
-- per conversation, right on every write path (agent turns, webhooks, the team's replies, contact edits and
-- merges, deletions), without the application writing it. The list's `q` is then one GIN probe.
--
-- What the document holds, as distinct lexemes without positions: the words ('simple' configuration) of the
-- prospect's name and handle, of its contact's name, email and phone (the prospect's contact, or a web chat's own
-- contact), of every message not deleted by the prospect; and, for phone search by any run of digits, every
-- suffix of 4+ digits of the handle's and the contact phone's digits, marked '#' ("#5550100477", "#550100477" …),
-- so the prefix query '#0100':* finds +15550100477 — no message word can start with '#'.
-- Bounds (a tsvector must stay under 1 MB): lexemes longer than 64 bytes are left out, and messages add words
-- only while the document has fewer than 8,000 (at most 8,000 × 68 bytes ≈ 0.5 MB); a longer conversation's
-- later new words are not searchable (its person and the first 8,000 distinct words are).

-- The words of a text, as lexemes of at most 64 bytes. The parser keeps an email, URL or host as one lexeme
-- ("ana@example.com") while the list splits what is typed into words ('ana':* & 'example':* & 'com':*), so the
-- words between punctuation are added too (only when the text has any).
CREATE OR REPLACE FUNCTION conversation_search_words(t text) RETURNS text[] LANGUAGE sql IMMUTABLE AS $$
  SELECT coalesce(array_agg(l), '{}')
  FROM unnest(tsvector_to_array(
    to_tsvector('simple', coalesce(t, ''))
    || CASE WHEN t ~ '[[:alnum:]][@./:_+-][[:alnum:]]' THEN to_tsvector('simple', regexp_replace(t, '[[:punct:]]+', ' ', 'g'))
            ELSE ''::tsvector END)) l
  WHERE octet_length(l) <= 64
$$;--> statement-breakpoint
-- '#' and every suffix of 4+ of the (first 24) digits of a phone number or handle.
CREATE OR REPLACE FUNCTION conversation_search_digits(t text) RETURNS text[] LANGUAGE sql IMMUTABLE AS $$
  SELECT coalesce(array_agg('#' || substr(d, i)), '{}')
  FROM (SELECT left(regexp_replace(coalesce(t, ''), '[^0-9]', '', 'g'), 24) AS d) x, generate_series(1, length(d) - 3) i
$$;--> statement-breakpoint
-- The person part: prospect and contact words and digits.
CREATE OR REPLACE FUNCTION conversation_search_person(conv_prospect integer, conv_contact integer) RETURNS text[] LANGUAGE sql STABLE AS $$
  SELECT conversation_search_words(concat_ws(' ', p.name, p.external_id, k.name, k.email, k.phone))
         || conversation_search_digits(p.external_id) || conversation_search_digits(k.phone)
  FROM (SELECT 1) one
  LEFT JOIN prospects p ON p.id = conv_prospect
  LEFT JOIN contacts k ON k.id = coalesce(p.contact_id, conv_contact)
$$;--> statement-breakpoint
-- The whole document of a conversation, from what is stored now (used on edits, deletions and person changes).
CREATE OR REPLACE FUNCTION conversation_search_doc(conv integer) RETURNS tsvector LANGUAGE sql STABLE AS $$
  SELECT array_to_tsvector(
    conversation_search_person(c.prospect_id, c.contact_id)
    || ARRAY(SELECT DISTINCT w FROM messages m, unnest(conversation_search_words(m.message)) w
             WHERE m.conversation_id = conv AND m.deleted_at IS NULL LIMIT 8000))
  FROM conversations c WHERE c.id = conv
$$;--> statement-breakpoint
-- A document with new words added (the document unchanged once it holds 8,000 lexemes).
CREATE OR REPLACE FUNCTION conversation_search_add(doc tsvector, words text[]) RETURNS tsvector LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN length(doc) >= 8000 OR cardinality(words) = 0 THEN doc
              ELSE doc || array_to_tsvector(words[1:8000 - length(doc)]) END
$$;--> statement-breakpoint
-- Rebuilds the documents of the given conversations (skipping those being deleted).
CREATE OR REPLACE FUNCTION conversation_search_rebuild(ids integer[]) RETURNS void LANGUAGE sql AS $$
  UPDATE conversation_search s SET doc = conversation_search_doc(s.conversation_id)
  WHERE s.conversation_id = ANY(ids) AND EXISTS (SELECT 1 FROM conversations c WHERE c.id = s.conversation_id)
$$;--> statement-breakpoint

-- A new conversation starts with its person's words (statement level: a bulk insert is one insert here).
CREATE OR REPLACE FUNCTION conversation_search_conversations_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO conversation_search (conversation_id, doc)
    SELECT n.id, array_to_tsvector(conversation_search_person(n.prospect_id, n.contact_id)) FROM new_conversations n
    ON CONFLICT (conversation_id) DO NOTHING;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER conversations_search_insert AFTER INSERT ON conversations
  REFERENCING NEW TABLE AS new_conversations
  FOR EACH STATEMENT EXECUTE FUNCTION conversation_search_conversations_added();--> statement-breakpoint
-- Its prospect or contact changed (a web chat's visitor typed an email; a contact deleted sets it null).
CREATE OR REPLACE FUNCTION conversation_search_conversation_person() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM conversation_search_rebuild(ARRAY[NEW.id]);
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER conversations_search_person AFTER UPDATE OF prospect_id, contact_id ON conversations
  FOR EACH ROW WHEN (OLD.prospect_id IS DISTINCT FROM NEW.prospect_id OR OLD.contact_id IS DISTINCT FROM NEW.contact_id)
  EXECUTE FUNCTION conversation_search_conversation_person();--> statement-breakpoint

-- New messages add their words: one update per conversation and statement, none when every word is known.
CREATE OR REPLACE FUNCTION conversation_search_messages_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE conversation_search s SET doc = conversation_search_add(s.doc, n.words)
  FROM (SELECT m.conversation_id, array_agg(DISTINCT w) AS words
        FROM new_messages m, unnest(conversation_search_words(m.message)) w
        WHERE m.deleted_at IS NULL GROUP BY m.conversation_id) n
  WHERE s.conversation_id = n.conversation_id AND length(s.doc) < 8000 AND NOT (n.words <@ tsvector_to_array(s.doc));
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER messages_search_insert AFTER INSERT ON messages
  REFERENCING NEW TABLE AS new_messages
  FOR EACH STATEMENT EXECUTE FUNCTION conversation_search_messages_added();--> statement-breakpoint
-- An edited message, or one the prospect deleted: the document is rebuilt, so the old words stop matching.
CREATE OR REPLACE FUNCTION conversation_search_message_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM conversation_search_rebuild(ARRAY[NEW.conversation_id]);
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER messages_search_update AFTER UPDATE OF message, deleted_at ON messages
  FOR EACH ROW WHEN (OLD.message IS DISTINCT FROM NEW.message OR OLD.deleted_at IS DISTINCT FROM NEW.deleted_at)
  EXECUTE FUNCTION conversation_search_message_changed();--> statement-breakpoint
-- Messages deleted by the team (or a history rebuild): each conversation touched is rebuilt once per statement.
CREATE OR REPLACE FUNCTION conversation_search_messages_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM conversation_search_rebuild(ARRAY(SELECT DISTINCT conversation_id FROM old_messages));
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER messages_search_delete AFTER DELETE ON messages
  REFERENCING OLD TABLE AS old_messages
  FOR EACH STATEMENT EXECUTE FUNCTION conversation_search_messages_deleted();--> statement-breakpoint

-- A prospect renamed, re-keyed or linked to another contact (a merge moves handles): its conversations.
CREATE OR REPLACE FUNCTION conversation_search_prospect_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM conversation_search_rebuild(ARRAY(SELECT id FROM conversations WHERE prospect_id = NEW.id));
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER prospects_search_update AFTER UPDATE OF name, external_id, contact_id ON prospects
  FOR EACH ROW WHEN (OLD.name IS DISTINCT FROM NEW.name OR OLD.external_id IS DISTINCT FROM NEW.external_id
                     OR OLD.contact_id IS DISTINCT FROM NEW.contact_id)
  EXECUTE FUNCTION conversation_search_prospect_changed();--> statement-breakpoint
-- A contact edited: the conversations of its handles and the web chats it was captured from.
CREATE OR REPLACE FUNCTION conversation_search_contact_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM conversation_search_rebuild(ARRAY(
    SELECT c.id FROM conversations c WHERE c.prospect_id IN (SELECT p.id FROM prospects p WHERE p.contact_id = NEW.id)
    UNION SELECT c.id FROM conversations c WHERE c.contact_id = NEW.id));
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER contacts_search_update AFTER UPDATE OF name, email, phone ON contacts
  FOR EACH ROW WHEN (OLD.name IS DISTINCT FROM NEW.name OR OLD.email IS DISTINCT FROM NEW.email OR OLD.phone IS DISTINCT FROM NEW.phone)
  EXECUTE FUNCTION conversation_search_contact_changed();--> statement-breakpoint

-- Backfill, once, from what is stored; the GIN index is built after the rows instead of row by row.
DROP INDEX IF EXISTS "conversation_search_doc_index";--> statement-breakpoint
INSERT INTO conversation_search (conversation_id, doc) SELECT c.id, conversation_search_doc(c.id) FROM conversations c
  ON CONFLICT (conversation_id) DO NOTHING;--> statement-breakpoint
CREATE INDEX "conversation_search_doc_index" ON "conversation_search" USING gin ("doc");--> statement-breakpoint
ANALYZE conversation_search;
