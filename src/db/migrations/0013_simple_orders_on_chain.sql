ALTER TABLE "simple_orders" ADD COLUMN "verification" text DEFAULT 'provider' NOT NULL;--> statement-breakpoint
ALTER TABLE "simple_orders" ADD COLUMN "chain_deposit_address" text;--> statement-breakpoint
ALTER TABLE "simple_orders" ADD COLUMN "expected_gross_micro" bigint;--> statement-breakpoint
ALTER TABLE "simple_orders" ADD COLUMN "deposit_transaction_hash" text;--> statement-breakpoint
ALTER TABLE "chain_cursors" ADD COLUMN "head" bigint;--> statement-breakpoint
ALTER TABLE "chain_cursors" ADD COLUMN "confirmed_through" bigint;