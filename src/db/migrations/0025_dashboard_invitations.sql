CREATE TABLE "dashboard_invitations" (
	"id" text PRIMARY KEY NOT NULL,
	"merchant_id" text NOT NULL,
	"email" text NOT NULL,
	"role" text NOT NULL,
	"token_hash" text NOT NULL,
	"invited_by_email" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"accepted_at" timestamp with time zone,
	CONSTRAINT "dashboard_invitations_role_check" CHECK ("dashboard_invitations"."role" in ('owner', 'admin', 'developer', 'viewer'))
);
--> statement-breakpoint
ALTER TABLE "dashboard_invitations" ADD CONSTRAINT "dashboard_invitations_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "dashboard_invitations_token_idx" ON "dashboard_invitations" USING btree ("token_hash");--> statement-breakpoint
CREATE UNIQUE INDEX "dashboard_invitations_pending_idx" ON "dashboard_invitations" USING btree ("merchant_id","email") WHERE "dashboard_invitations"."accepted_at" is null;