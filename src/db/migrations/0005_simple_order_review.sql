ALTER TABLE "simple_orders" ADD COLUMN "review_flag" text;--> statement-breakpoint
ALTER TABLE "simple_orders" ADD COLUMN "review_note" text;--> statement-breakpoint
CREATE INDEX "simple_orders_review_idx" ON "simple_orders" USING btree ("review_flag") WHERE "simple_orders"."review_flag" is not null;