DROP INDEX "checkout_sessions_merchant_status_idx";--> statement-breakpoint
DROP INDEX "checkout_sessions_merchant_email_idx";--> statement-breakpoint
CREATE INDEX "checkout_sessions_merchant_status_idx" ON "checkout_sessions" USING btree ("merchant_id","status","created_at","id");--> statement-breakpoint
CREATE INDEX "checkout_sessions_merchant_email_idx" ON "checkout_sessions" USING btree ("merchant_id",lower("customer_email"),"created_at","id") WHERE "checkout_sessions"."customer_email" is not null;