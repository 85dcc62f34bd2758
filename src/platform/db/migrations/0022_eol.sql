CREATE TABLE "eol_cycles" (
	"product_id" text NOT NULL,
	"cycle" text NOT NULL,
	"position" integer NOT NULL,
	"release_date" date,
	"eol" jsonb,
	"eol_date" date,
	"lts" jsonb,
	"support" jsonb,
	"support_date" date,
	"extended_support" jsonb,
	"latest" text,
	"latest_release_date" date,
	"link" text,
	CONSTRAINT "eol_cycles_product_id_cycle_pk" PRIMARY KEY("product_id","cycle")
);
--> statement-breakpoint
CREATE TABLE "eol_identifiers" (
	"key" text NOT NULL,
	"product_id" text NOT NULL,
	CONSTRAINT "eol_identifiers_key_product_id_pk" PRIMARY KEY("key","product_id")
);
--> statement-breakpoint
CREATE TABLE "eol_notices" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"org_id" uuid NOT NULL,
	"project_id" uuid NOT NULL,
	"subscription_id" uuid NOT NULL,
	"product_id" text NOT NULL,
	"cycle" text NOT NULL,
	"kind" text NOT NULL,
	"stage" text NOT NULL,
	"due_on" date NOT NULL,
	"days_left" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "eol_notices_kind_valid" CHECK ("eol_notices"."kind" in ('eol', 'support')),
	CONSTRAINT "eol_notices_stage_valid" CHECK ("eol_notices"."stage" in ('approaching', 'reached'))
);
--> statement-breakpoint
CREATE TABLE "eol_products" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"category" text,
	"identifiers" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"file" text,
	"hash" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "eol_subscriptions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" uuid NOT NULL,
	"project_id" uuid NOT NULL,
	"product_id" text NOT NULL,
	"cycle" text,
	"notify_before_eol_days" integer,
	"notify_before_support_days" integer,
	"notify_from" date NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "eol_subscriptions_project_product_cycle_uq" UNIQUE NULLS NOT DISTINCT("project_id","product_id","cycle"),
	CONSTRAINT "eol_subscriptions_eol_days" CHECK ("eol_subscriptions"."notify_before_eol_days" between 0 and 3650),
	CONSTRAINT "eol_subscriptions_support_days" CHECK ("eol_subscriptions"."notify_before_support_days" between 0 and 3650)
);
--> statement-breakpoint
ALTER TABLE "eol_cycles" ADD CONSTRAINT "eol_cycles_product_id_eol_products_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."eol_products"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "eol_identifiers" ADD CONSTRAINT "eol_identifiers_product_id_eol_products_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."eol_products"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "eol_notices" ADD CONSTRAINT "eol_notices_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "eol_notices" ADD CONSTRAINT "eol_notices_subscription_id_eol_subscriptions_id_fk" FOREIGN KEY ("subscription_id") REFERENCES "public"."eol_subscriptions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "eol_subscriptions" ADD CONSTRAINT "eol_subscriptions_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "eol_subscriptions" ADD CONSTRAINT "eol_subscriptions_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "eol_subscriptions" ADD CONSTRAINT "eol_subscriptions_product_id_eol_products_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."eol_products"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "eol_identifiers_product_idx" ON "eol_identifiers" USING btree ("product_id");--> statement-breakpoint
CREATE UNIQUE INDEX "eol_notices_once_uq" ON "eol_notices" USING btree ("subscription_id","cycle","kind","stage","due_on");--> statement-breakpoint
CREATE INDEX "eol_notices_project_idx" ON "eol_notices" USING btree ("project_id","id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "eol_products_category_idx" ON "eol_products" USING btree ("category");--> statement-breakpoint
CREATE INDEX "eol_subscriptions_product_idx" ON "eol_subscriptions" USING btree ("product_id");