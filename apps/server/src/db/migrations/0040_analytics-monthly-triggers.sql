-- Custom migration (issue 26, docs/analytics.md "Fast at scale"): keeps analytics_monthly, the funnel and speed
-- figures per created month and filter keys, right on every write path (a manual phase change, a deletion,
-- the first-message stamps of migration "analytics-triggers"), without the application writing it.
-- The first-reply histogram bucket of a number of seconds: 0 below 1 s, then log-spaced buckets 10 % wide
-- (bucket b >= 1 holds [1.1^(b-1), 1.1^b) seconds), the last (200) open-ended.
CREATE OR REPLACE FUNCTION analytics_reply_bucket(seconds float8) RETURNS integer LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN seconds IS NULL THEN NULL WHEN seconds < 1 THEN 0
              ELSE least(200, 1 + floor(ln(seconds) / ln(1.1))::integer) END
$$;--> statement-breakpoint
-- Adds (delta 1) or takes away (delta -1) one conversation's share of its row.
CREATE OR REPLACE FUNCTION analytics_monthly_add(c conversations, delta integer) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  k_month date := date_trunc('month', c.created_at AT TIME ZONE 'UTC')::date;
  k_account integer := coalesce(c.messaging_account_id, 0);
  k_call boolean := c.call_sid IS NOT NULL;
  k_version integer := coalesce(c.type_version, 0);
  p integer := coalesce(c.max_phase, -1) + 2;
  secs float8 := extract(epoch FROM (c.first_reply_at - c.first_prospect_message_at));
  b integer := analytics_reply_bucket(extract(epoch FROM (c.first_reply_at - c.first_prospect_message_at))) + 1;
BEGIN
  -- A conversation without a type (no funnel to count it in) has no rollup cell.
  IF c.conversation_type_id IS NULL THEN RETURN; END IF;
  IF delta > 0 THEN
    INSERT INTO analytics_monthly (conversation_type_id, month, messaging_account_id, is_call, type_version)
      VALUES (c.conversation_type_id, k_month, k_account, k_call, k_version) ON CONFLICT DO NOTHING;
  END IF;
  UPDATE analytics_monthly SET
      conversations = conversations + delta,
      max_phase_counts[p] = coalesce(max_phase_counts[p], 0) + delta,
      with_prospect_message = with_prospect_message + CASE WHEN c.first_prospect_message_at IS NOT NULL THEN delta ELSE 0 END,
      replied = replied + CASE WHEN secs IS NOT NULL THEN delta ELSE 0 END,
      within_minute = within_minute + CASE WHEN secs <= 60 THEN delta ELSE 0 END
    WHERE conversation_type_id = c.conversation_type_id AND month = k_month AND messaging_account_id = k_account
      AND is_call = k_call AND type_version = k_version;
  IF b IS NOT NULL AND c.first_reply_by_human THEN
    UPDATE analytics_monthly SET team_reply_buckets[b] = coalesce(team_reply_buckets[b], 0) + delta
      WHERE conversation_type_id = c.conversation_type_id AND month = k_month AND messaging_account_id = k_account
        AND is_call = k_call AND type_version = k_version;
  ELSIF b IS NOT NULL THEN
    UPDATE analytics_monthly SET agent_reply_buckets[b] = coalesce(agent_reply_buckets[b], 0) + delta
      WHERE conversation_type_id = c.conversation_type_id AND month = k_month AND messaging_account_id = k_account
        AND is_call = k_call AND type_version = k_version;
  END IF;
END $$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION analytics_monthly_conversation() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN PERFORM analytics_monthly_add(OLD, -1); END IF;
  IF TG_OP IN ('UPDATE', 'INSERT') THEN PERFORM analytics_monthly_add(NEW, 1); END IF;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER conversations_analytics_monthly_insert_delete AFTER INSERT OR DELETE ON conversations
  FOR EACH ROW EXECUTE FUNCTION analytics_monthly_conversation();--> statement-breakpoint
-- Only when a column the rollup reads changes: a conversation's other updates (every message's count and date)
-- cost nothing here. `phase` is listed because max_phase changes in the BEFORE trigger of migration
-- "analytics-triggers" when only phase is SET, and UPDATE OF looks at the SET list alone.
CREATE TRIGGER conversations_analytics_monthly_update AFTER UPDATE OF
    conversation_type_id, created_at, messaging_account_id, call_sid, type_version, phase, max_phase,
    first_prospect_message_at, first_reply_at, first_reply_by_human ON conversations
  FOR EACH ROW WHEN (
    (OLD.conversation_type_id, OLD.created_at, OLD.messaging_account_id, OLD.call_sid, OLD.type_version, OLD.max_phase,
     OLD.first_prospect_message_at, OLD.first_reply_at, OLD.first_reply_by_human)
    IS DISTINCT FROM
    (NEW.conversation_type_id, NEW.created_at, NEW.messaging_account_id, NEW.call_sid, NEW.type_version, NEW.max_phase,
     NEW.first_prospect_message_at, NEW.first_reply_at, NEW.first_reply_by_human))
  EXECUTE FUNCTION analytics_monthly_conversation();--> statement-breakpoint
-- Backfill, once, from the conversations' analytics columns (set-based: one pass over conversations).
CREATE OR REPLACE FUNCTION analytics_dense_counters(subscripts integer[], counts integer[]) RETURNS integer[] LANGUAGE sql IMMUTABLE AS $$
  SELECT coalesce(array_agg(coalesce(u.n, 0) ORDER BY i), '{0}')
  FROM generate_series(1, greatest(1, (SELECT max(s) FROM unnest(subscripts) s))) i
  LEFT JOIN unnest(subscripts, counts) u(s, n) ON u.s = i
$$;--> statement-breakpoint
INSERT INTO analytics_monthly (conversation_type_id, month, messaging_account_id, is_call, type_version, conversations,
    max_phase_counts, with_prospect_message, replied, within_minute, agent_reply_buckets, team_reply_buckets)
  WITH k AS MATERIALIZED (
    SELECT conversation_type_id, date_trunc('month', created_at AT TIME ZONE 'UTC')::date AS month,
           coalesce(messaging_account_id, 0) AS messaging_account_id, call_sid IS NOT NULL AS is_call,
           coalesce(type_version, 0) AS type_version, coalesce(max_phase, -1) + 2 AS p,
           first_prospect_message_at IS NOT NULL AS with_prospect, first_reply_by_human AS by_human,
           extract(epoch FROM (first_reply_at - first_prospect_message_at)) AS secs
    FROM conversations WHERE conversation_type_id IS NOT NULL
  ), cells AS (
    SELECT conversation_type_id, month, messaging_account_id, is_call, type_version, count(*)::int AS conversations,
           count(*) FILTER (WHERE with_prospect)::int AS with_prospect_message,
           count(secs)::int AS replied, count(*) FILTER (WHERE secs <= 60)::int AS within_minute
    FROM k GROUP BY 1, 2, 3, 4, 5
  ), phases AS (
    SELECT conversation_type_id, month, messaging_account_id, is_call, type_version,
           analytics_dense_counters(array_agg(p), array_agg(n)) AS max_phase_counts
    FROM (SELECT conversation_type_id, month, messaging_account_id, is_call, type_version, p, count(*)::int AS n FROM k GROUP BY 1, 2, 3, 4, 5, 6) x
    GROUP BY 1, 2, 3, 4, 5
  ), replies AS (
    SELECT conversation_type_id, month, messaging_account_id, is_call, type_version,
           analytics_dense_counters(array_agg(b) FILTER (WHERE NOT by_human), array_agg(n) FILTER (WHERE NOT by_human)) AS agent_reply_buckets,
           analytics_dense_counters(array_agg(b) FILTER (WHERE by_human), array_agg(n) FILTER (WHERE by_human)) AS team_reply_buckets
    FROM (SELECT conversation_type_id, month, messaging_account_id, is_call, type_version, by_human,
                 analytics_reply_bucket(secs) + 1 AS b, count(*)::int AS n
          FROM k WHERE secs IS NOT NULL GROUP BY 1, 2, 3, 4, 5, 6, 7) x
    GROUP BY 1, 2, 3, 4, 5
  )
  SELECT conversation_type_id, month, messaging_account_id, is_call, type_version, cells.conversations,
         phases.max_phase_counts, cells.with_prospect_message, cells.replied, cells.within_minute,
         coalesce(replies.agent_reply_buckets, '{0}'), coalesce(replies.team_reply_buckets, '{0}')
  FROM cells JOIN phases USING (conversation_type_id, month, messaging_account_id, is_call, type_version)
  LEFT JOIN replies USING (conversation_type_id, month, messaging_account_id, is_call, type_version);
