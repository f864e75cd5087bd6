CREATE TABLE "payment_refunds" (
	"id" text PRIMARY KEY NOT NULL,
	"payment_id" text NOT NULL,
	"merchant_id" text NOT NULL,
	"asset" text NOT NULL,
	"network" text NOT NULL,
	"amount_micro" bigint NOT NULL,
	"address" text NOT NULL,
	"status" text DEFAULT 'requested' NOT NULL,
	"payout_id" text,
	"tx_hash" text,
	"failure_reason" text,
	"request_key" text,
	"requested_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"refunded_at" timestamp with time zone,
	CONSTRAINT "payment_refunds_request_key_unique" UNIQUE("payment_id","request_key"),
	CONSTRAINT "payment_refunds_amount_check" CHECK ("payment_refunds"."amount_micro" > 0)
);
--> statement-breakpoint
ALTER TABLE "payouts" DROP CONSTRAINT "payouts_payment_kind_exception_attempt_unique";--> statement-breakpoint
ALTER TABLE "payouts" ADD COLUMN "refund_id" text;--> statement-breakpoint
CREATE INDEX "payment_refunds_payment_idx" ON "payment_refunds" USING btree ("payment_id");--> statement-breakpoint
CREATE INDEX "payment_refunds_merchant_idx" ON "payment_refunds" USING btree ("merchant_id","asset","network");--> statement-breakpoint
ALTER TABLE "payouts" ADD CONSTRAINT "payouts_payment_kind_exception_refund_attempt_unique" UNIQUE NULLS NOT DISTINCT("payment_id","kind","exception_id","refund_id","attempt");