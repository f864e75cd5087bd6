CREATE TABLE "payout_nonces" (
	"network" text NOT NULL,
	"sender" text NOT NULL,
	"next_nonce" integer NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "payout_nonces_sender_unique" UNIQUE("network","sender")
);
--> statement-breakpoint
CREATE TABLE "payouts" (
	"id" text PRIMARY KEY NOT NULL,
	"payment_id" text NOT NULL,
	"kind" text NOT NULL,
	"network" text NOT NULL,
	"asset" text NOT NULL,
	"token" text,
	"from_address" text NOT NULL,
	"to_address" text NOT NULL,
	"amount" numeric(78, 0) NOT NULL,
	"gas_limit" numeric(78, 0),
	"max_fee_per_gas" numeric(78, 0),
	"max_priority_fee_per_gas" numeric(78, 0),
	"nonce" integer,
	"signed_tx" text,
	"tx_hash" text,
	"replaced_hashes" text[] DEFAULT '{}' NOT NULL,
	"status" text DEFAULT 'planned' NOT NULL,
	"block_number" numeric(78, 0),
	"fee_wei" numeric(78, 0),
	"failure_reason" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"signed_at" timestamp with time zone,
	"broadcast_at" timestamp with time zone,
	"confirmed_at" timestamp with time zone,
	CONSTRAINT "payouts_payment_kind_unique" UNIQUE("payment_id","kind"),
	CONSTRAINT "payouts_sender_nonce_unique" UNIQUE("network","from_address","nonce")
);
--> statement-breakpoint
CREATE TABLE "ledger_entries" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"posting_id" text NOT NULL,
	"line" integer NOT NULL,
	"account" text NOT NULL,
	"asset" text NOT NULL,
	"network" text NOT NULL,
	"amount" numeric(78, 0) NOT NULL,
	"payment_id" text,
	"tx_hash" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "ledger_entries_posting_line_unique" UNIQUE("posting_id","line")
);
--> statement-breakpoint
CREATE INDEX "payouts_status_idx" ON "payouts" USING btree ("status");--> statement-breakpoint
CREATE INDEX "ledger_entries_account_idx" ON "ledger_entries" USING btree ("account","asset","network");--> statement-breakpoint
CREATE INDEX "ledger_entries_payment_idx" ON "ledger_entries" USING btree ("payment_id");