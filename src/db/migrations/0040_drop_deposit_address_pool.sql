DROP FUNCTION IF EXISTS take_deposit_address(text, text);--> statement-breakpoint
DROP TABLE "deposit_address_pool" CASCADE;
