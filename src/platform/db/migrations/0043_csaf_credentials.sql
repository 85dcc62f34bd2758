-- Credentials an organization gives a CSAF provider for its TLP:GREEN and TLP:AMBER documents
-- (issue 36, docs/csaf-providers.md): the kind in clear (basic, entete: what the API shows), the
-- credentials themselves encrypted at rest like webhook secrets (platform/secrets.ts, enc:v1 AES-GCM).
ALTER TABLE "csaf_providers" ADD COLUMN IF NOT EXISTS "credentials_kind" text;--> statement-breakpoint
ALTER TABLE "csaf_providers" ADD COLUMN IF NOT EXISTS "credentials" text;
