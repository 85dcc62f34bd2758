ALTER TABLE "stack_sboms" ADD COLUMN "fault_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "stack_sboms" ADD COLUMN "faults" jsonb DEFAULT '[]'::jsonb NOT NULL;
