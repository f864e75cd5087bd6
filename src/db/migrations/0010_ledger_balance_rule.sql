-- Decisions §11 "Ledger": a posting's lines sum to zero per (asset, network). Checked at commit
-- (a deferred constraint trigger), so a posting may be written line by line inside its transaction,
-- and an unbalanced one is refused as a whole.
CREATE FUNCTION ledger_posting_balances() RETURNS trigger AS $$
DECLARE
  off record;
BEGIN
  SELECT asset, network, sum(amount) AS total INTO off
    FROM ledger_entries
   WHERE posting_id = NEW.posting_id
   GROUP BY asset, network
  HAVING sum(amount) <> 0
   LIMIT 1;
  IF FOUND THEN
    RAISE EXCEPTION 'ledger posting % does not balance: % on % sums to %', NEW.posting_id, off.asset, off.network, off.total
      USING ERRCODE = 'check_violation';
  END IF;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER ledger_posting_balances
  AFTER INSERT ON ledger_entries
  DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW EXECUTE FUNCTION ledger_posting_balances();
--> statement-breakpoint
-- The ledger is append-only: a correction is a new posting, never an edit.
CREATE FUNCTION ledger_entries_append_only() RETURNS trigger AS $$
BEGIN
  RAISE EXCEPTION 'ledger_entries are append-only' USING ERRCODE = 'restrict_violation';
END;
$$ LANGUAGE plpgsql;
--> statement-breakpoint
CREATE TRIGGER ledger_entries_append_only
  BEFORE UPDATE OR DELETE ON ledger_entries
  FOR EACH ROW EXECUTE FUNCTION ledger_entries_append_only();
