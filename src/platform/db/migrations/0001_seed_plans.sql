-- Seed the three standard plans; operators change limits with `vigie plan upsert`.
INSERT INTO "plans" ("slug", "name", "max_api_calls_per_hour") VALUES
  ('free', 'Free', 1000),
  ('pro', 'Pro', 10000),
  ('enterprise', 'Enterprise', 100000)
ON CONFLICT ("slug") DO NOTHING;
