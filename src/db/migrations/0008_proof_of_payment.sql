CREATE TABLE "chain_credits" (
	"network" text NOT NULL,
	"transaction_hash" text NOT NULL,
	"log_index" integer NOT NULL,
	"payment_id" text NOT NULL,
	"asset" text NOT NULL,
	"token" text NOT NULL,
	"from_address" text NOT NULL,
	"to_address" text NOT NULL,
	"amount_micro" bigint NOT NULL,
	"block_number" bigint NOT NULL,
	"block_hash" text NOT NULL,
	"state" text DEFAULT 'credited' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "chain_credits_network_transaction_hash_log_index_pk" PRIMARY KEY("network","transaction_hash","log_index")
);
--> statement-breakpoint
CREATE TABLE "chain_cursors" (
	"network" text PRIMARY KEY NOT NULL,
	"cursor" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "payment_exceptions" (
	"id" text PRIMARY KEY NOT NULL,
	"payment_kind" text NOT NULL,
	"payment_id" text NOT NULL,
	"kind" text NOT NULL,
	"amount_micro" bigint NOT NULL,
	"references" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"status" text DEFAULT 'open' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "payment_exceptions_payment_kind_unique" UNIQUE("payment_id","kind")
);
--> statement-breakpoint
ALTER TABLE "checkout_sessions" ADD COLUMN "verification" text DEFAULT 'provider' NOT NULL;--> statement-breakpoint
ALTER TABLE "checkout_sessions" ADD COLUMN "deposit_address" text;--> statement-breakpoint
ALTER TABLE "checkout_sessions" ADD COLUMN "expected_gross_micro" bigint;--> statement-breakpoint
ALTER TABLE "transactions" ADD COLUMN "deposit_transaction_hash" text;--> statement-breakpoint
CREATE INDEX "payment_exceptions_status_idx" ON "payment_exceptions" USING btree ("status");