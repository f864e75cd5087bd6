ALTER TABLE "checkout_sessions" DROP COLUMN "workflow_started";--> statement-breakpoint
ALTER TABLE "simple_orders" DROP COLUMN "workflow_started";