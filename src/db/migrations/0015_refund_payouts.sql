ALTER TABLE "payouts" DROP CONSTRAINT "payouts_payment_kind_unique";--> statement-breakpoint
ALTER TABLE "payouts" ADD COLUMN "exception_id" text;--> statement-breakpoint
ALTER TABLE "payouts" ADD CONSTRAINT "payouts_payment_kind_exception_unique" UNIQUE NULLS NOT DISTINCT("payment_id","kind","exception_id");