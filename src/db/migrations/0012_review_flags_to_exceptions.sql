-- Decisions §12: the operator flags of before (review_flag on checkout sessions and simple orders)
-- become exception rows, so the money they name has an owner an operator can list and resolve. Hand
-- written: drizzle-kit cannot express a data migration. The columns stay, no longer written.
-- Kinds: late_success -> late, duplicate_link_payment -> duplicate, provider_mismatch -> unverified.
-- The amount is the first succeeded provider event's destinationAmount (else the transaction's
-- gross, else 0), in micro units; the flag and its note go into the references.
INSERT INTO "payment_exceptions" ("id", "payment_kind", "payment_id", "kind", "arrival_key", "amount_micro", "references", "status", "created_at")
SELECT
  'exc_' || substr(md5(random()::text || f.payment_id || f.flag), 1, 24),
  f.payment_kind,
  f.payment_id,
  CASE f.flag WHEN 'late_success' THEN 'late' WHEN 'duplicate_link_payment' THEN 'duplicate' ELSE 'unverified' END,
  'review_flag',
  coalesce(
    (SELECT round((pe."payload"->>'destinationAmount')::numeric * 1000000)::bigint
       FROM "provider_events" pe
      WHERE pe."payment_id" = f.payment_id AND pe."type" = 'payment.succeeded'
        AND pe."payload"->>'destinationAmount' ~ '^[0-9]+(\.[0-9]{1,6})?$'
      ORDER BY pe."received_at" LIMIT 1),
    (SELECT t."gross_micro" FROM "transactions" t WHERE t."payment_id" = f.payment_id),
    0
  ),
  jsonb_build_object('migratedFrom', 'review_flag', 'flag', f.flag, 'note', f.note),
  'open',
  f.updated_at
FROM (
  SELECT 'checkout_session' AS payment_kind, "id" AS payment_id, "review_flag" AS flag, "review_note" AS note, "updated_at"
    FROM "checkout_sessions" WHERE "review_flag" IS NOT NULL
  UNION ALL
  SELECT 'simple_order', "transaction_code", "review_flag", "review_note", "updated_at"
    FROM "simple_orders" WHERE "review_flag" IS NOT NULL
) f
ON CONFLICT DO NOTHING;
