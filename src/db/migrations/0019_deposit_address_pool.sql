CREATE TABLE "deposit_address_pool" (
	"derivation_index" integer PRIMARY KEY NOT NULL,
	"address" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "deposit_address_pool_address_unique" UNIQUE("address")
);
--> statement-breakpoint
-- One pooled address for a payment, inside the statement that inserts the payment: the lowest pool
-- row nobody else holds is deleted (SKIP LOCKED: concurrent takers never wait for, nor get, the same
-- row) and becomes the payment's deposit_addresses row. An empty pool raises SQLSTATE DAP01: the caller
-- derives one itself (payments/deposits.ts). Rolled back with the statement, the row returns to the pool.
CREATE FUNCTION take_deposit_address(p_network text, p_reference text) RETURNS text
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_index integer;
  v_address text;
BEGIN
  DELETE FROM deposit_address_pool
   WHERE derivation_index = (SELECT derivation_index FROM deposit_address_pool ORDER BY derivation_index LIMIT 1 FOR UPDATE SKIP LOCKED)
  RETURNING derivation_index, address INTO v_index, v_address;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'the deposit address pool is empty' USING ERRCODE = 'DAP01';
  END IF;
  INSERT INTO deposit_addresses (derivation_index, address, network, payment_reference) VALUES (v_index, v_address, p_network, p_reference);
  RETURN v_address;
END
$$;
