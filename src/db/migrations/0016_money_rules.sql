-- Issue 26: wrong_asset and dust credits (asset null for an unknown token contract), the token of a
-- wrong_asset exception, exception amounts positive, refund attempts, a canceled session's reason,
-- no provider on a wallet payment's transaction, a simple order's network fee.
ALTER TABLE "payouts" DROP CONSTRAINT "payouts_payment_kind_exception_unique";--> statement-breakpoint
ALTER TABLE "transactions" ALTER COLUMN "provider" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "chain_credits" ALTER COLUMN "asset" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "checkout_sessions" ADD COLUMN "cancel_reason" text;--> statement-breakpoint
ALTER TABLE "simple_orders" ADD COLUMN "network_fee_micro" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "payment_exceptions" ADD COLUMN "token" text;--> statement-breakpoint
ALTER TABLE "payment_exceptions" ADD COLUMN "asset" text;--> statement-breakpoint
ALTER TABLE "payouts" ADD COLUMN "attempt" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "payouts" ADD CONSTRAINT "payouts_payment_kind_exception_attempt_unique" UNIQUE NULLS NOT DISTINCT("payment_id","kind","exception_id","attempt");--> statement-breakpoint
ALTER TABLE "checkout_sessions" ADD CONSTRAINT "checkout_sessions_cancel_reason_check" CHECK ("checkout_sessions"."cancel_reason" is null or "checkout_sessions"."cancel_reason" in ('customer', 'link_paid'));--> statement-breakpoint
ALTER TABLE "payment_exceptions" ADD CONSTRAINT "payment_exceptions_amount_check" CHECK ("payment_exceptions"."amount_micro" > 0);