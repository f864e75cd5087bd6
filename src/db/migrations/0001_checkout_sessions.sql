CREATE TABLE "checkout_sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"merchant_id" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"mode" text DEFAULT 'live' NOT NULL,
	"source" text DEFAULT 'api' NOT NULL,
	"amount_minor" bigint NOT NULL,
	"currency" text NOT NULL,
	"country_code" text NOT NULL,
	"destination_asset" text NOT NULL,
	"network" text NOT NULL,
	"wallet_address" text NOT NULL,
	"commission_bps" integer NOT NULL,
	"provider" text NOT NULL,
	"rail_type" text NOT NULL,
	"customer_email" text,
	"order_id" text,
	"merchant_order_id" text,
	"success_url" text,
	"cancel_url" text,
	"webhook_url" text,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"provider_payment_id" text,
	"workflow_started" boolean DEFAULT false NOT NULL,
	"review_flag" text,
	"review_note" text,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp with time zone,
	CONSTRAINT "checkout_sessions_amount_check" CHECK ("checkout_sessions"."amount_minor" > 0)
);
--> statement-breakpoint
CREATE TABLE "transactions" (
	"row_id" bigserial PRIMARY KEY NOT NULL,
	"payment_id" text NOT NULL,
	"merchant_id" text NOT NULL,
	"status" text NOT NULL,
	"source_amount_minor" bigint NOT NULL,
	"source_currency" text NOT NULL,
	"destination_asset" text NOT NULL,
	"network" text NOT NULL,
	"wallet_address" text NOT NULL,
	"gross_micro" bigint,
	"merchant_settlement_micro" bigint,
	"platform_commission_micro" bigint,
	"commission_bps" integer NOT NULL,
	"provider" text NOT NULL,
	"provider_payment_id" text,
	"provider_event_id" text NOT NULL,
	"transaction_hash" text,
	"explorer_url" text,
	"failure_reason" text,
	"completed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "transactions_payment_id_unique" UNIQUE("payment_id"),
	CONSTRAINT "transactions_split_check" CHECK ("transactions"."status" <> 'completed' or ("transactions"."gross_micro" is not null and "transactions"."merchant_settlement_micro" + "transactions"."platform_commission_micro" = "transactions"."gross_micro" and "transactions"."platform_commission_micro" >= 0 and "transactions"."merchant_settlement_micro" >= 0))
);
--> statement-breakpoint
CREATE TABLE "provider_events" (
	"provider" text NOT NULL,
	"event_id" text NOT NULL,
	"payment_id" text NOT NULL,
	"type" text NOT NULL,
	"payload" jsonb NOT NULL,
	"state" text NOT NULL,
	"note" text,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "provider_events_provider_event_id_pk" PRIMARY KEY("provider","event_id")
);
--> statement-breakpoint
ALTER TABLE "checkout_sessions" ADD CONSTRAINT "checkout_sessions_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "transactions" ADD CONSTRAINT "transactions_payment_id_checkout_sessions_id_fk" FOREIGN KEY ("payment_id") REFERENCES "public"."checkout_sessions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "checkout_sessions_merchant_idx" ON "checkout_sessions" USING btree ("merchant_id","created_at");--> statement-breakpoint
CREATE INDEX "checkout_sessions_review_idx" ON "checkout_sessions" USING btree ("review_flag") WHERE "checkout_sessions"."review_flag" is not null;--> statement-breakpoint
CREATE INDEX "provider_events_payment_idx" ON "provider_events" USING btree ("payment_id");