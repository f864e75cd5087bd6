DROP INDEX "checkout_sessions_merchant_idx";--> statement-breakpoint
CREATE INDEX "checkout_sessions_merchant_status_idx" ON "checkout_sessions" USING btree ("merchant_id","status","created_at");--> statement-breakpoint
CREATE INDEX "checkout_sessions_merchant_order_idx" ON "checkout_sessions" USING btree ("merchant_id","order_id") WHERE "checkout_sessions"."order_id" is not null;--> statement-breakpoint
CREATE INDEX "checkout_sessions_merchant_order_key_idx" ON "checkout_sessions" USING btree ("merchant_id","merchant_order_id") WHERE "checkout_sessions"."merchant_order_id" is not null;--> statement-breakpoint
CREATE INDEX "checkout_sessions_merchant_email_idx" ON "checkout_sessions" USING btree ("merchant_id",lower("customer_email")) WHERE "checkout_sessions"."customer_email" is not null;--> statement-breakpoint
CREATE INDEX "chain_credits_transaction_hash_idx" ON "chain_credits" USING btree ("transaction_hash");--> statement-breakpoint
CREATE INDEX "payouts_tx_hash_idx" ON "payouts" USING btree ("tx_hash");--> statement-breakpoint
CREATE INDEX "checkout_sessions_merchant_idx" ON "checkout_sessions" USING btree ("merchant_id","created_at","id");