ALTER TABLE "payouts" DROP CONSTRAINT "payouts_payment_kind_exception_unique";--> statement-breakpoint
ALTER TABLE "payouts" ADD COLUMN "attempt" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "payouts" ADD CONSTRAINT "payouts_payment_kind_exception_attempt_unique" UNIQUE NULLS NOT DISTINCT("payment_id","kind","exception_id","attempt");