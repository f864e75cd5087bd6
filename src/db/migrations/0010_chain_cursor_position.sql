ALTER TABLE "chain_cursors" ADD COLUMN "head" bigint;--> statement-breakpoint
ALTER TABLE "chain_cursors" ADD COLUMN "confirmed_through" bigint;