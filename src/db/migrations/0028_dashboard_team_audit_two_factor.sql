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
--> statement-breakpoint
CREATE TABLE "dashboard_audit_log" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"merchant_id" text NOT NULL,
	"actor_user_id" text NOT NULL,
	"actor_email" text NOT NULL,
	"action" text NOT NULL,
	"target" text,
	"details" jsonb,
	"ip" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "dashboard_audit_log" ADD CONSTRAINT "dashboard_audit_log_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "dashboard_audit_log_merchant_idx" ON "dashboard_audit_log" USING btree ("merchant_id","id");
--> statement-breakpoint
CREATE TABLE "dashboard_recovery_codes" (
	"code_hash" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"used_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "dashboard_users" ADD COLUMN "totp_secret_encrypted" text;--> statement-breakpoint
ALTER TABLE "dashboard_users" ADD COLUMN "totp_enabled_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "dashboard_users" ADD COLUMN "totp_last_step" bigint;--> statement-breakpoint
ALTER TABLE "dashboard_recovery_codes" ADD CONSTRAINT "dashboard_recovery_codes_user_id_dashboard_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."dashboard_users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "dashboard_recovery_codes_user_idx" ON "dashboard_recovery_codes" USING btree ("user_id");
