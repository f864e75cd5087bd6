CREATE INDEX "checkout_sessions_payment_link_idx" ON "checkout_sessions" USING btree ("payment_link_id","created_at") WHERE "checkout_sessions"."payment_link_id" is not null;--> statement-breakpoint
CREATE INDEX "transactions_merchant_completed_idx" ON "transactions" USING btree ("merchant_id","completed_at") WHERE "transactions"."status" = 'completed';
