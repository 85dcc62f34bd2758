-- Every server process keeps API key contexts and project workflow lists in memory (the /api/v1
-- hot path needs no round trip). These triggers tell every process what to drop: at the commit of
-- any transaction that changes the data behind a cached value — whoever writes it, Vigie or psql —
-- PostgreSQL sends NOTIFY vigie_cache with the payload 'auth' (drop every key context) or
-- 'workflows:<project id>' (drop that project's list). A rolled-back transaction sends nothing.
-- Updates of columns no cache reads (api_keys.last_used_at, written in batches) send nothing.
CREATE FUNCTION "vigie_notify_auth"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('vigie_cache', 'auth');
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION "vigie_notify_workflows"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_TABLE_NAME = 'projects' THEN
    PERFORM pg_notify('vigie_cache', 'workflows:' || OLD.id);
  ELSE
    IF TG_OP <> 'INSERT' AND OLD.project_id IS NOT NULL THEN
      PERFORM pg_notify('vigie_cache', 'workflows:' || OLD.project_id);
    END IF;
    IF TG_OP <> 'DELETE' AND NEW.project_id IS NOT NULL THEN
      PERFORM pg_notify('vigie_cache', 'workflows:' || NEW.project_id);
    END IF;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "api_keys_cache" AFTER UPDATE OF "key_hash", "org_id", "scopes", "restricted", "revoked_at" OR DELETE ON "api_keys"
  FOR EACH ROW EXECUTE FUNCTION "vigie_notify_auth"();
--> statement-breakpoint
CREATE TRIGGER "api_key_projects_cache" AFTER INSERT OR UPDATE OR DELETE ON "api_key_projects"
  FOR EACH ROW EXECUTE FUNCTION "vigie_notify_auth"();
--> statement-breakpoint
CREATE TRIGGER "organizations_cache" AFTER UPDATE OF "name", "plan_id" OR DELETE ON "organizations"
  FOR EACH ROW EXECUTE FUNCTION "vigie_notify_auth"();
--> statement-breakpoint
CREATE TRIGGER "plans_cache" AFTER UPDATE OF "name", "slug", "max_api_calls_per_hour" OR DELETE ON "plans"
  FOR EACH ROW EXECUTE FUNCTION "vigie_notify_auth"();
--> statement-breakpoint
CREATE TRIGGER "workflows_cache" AFTER INSERT OR UPDATE OR DELETE ON "workflows"
  FOR EACH ROW EXECUTE FUNCTION "vigie_notify_workflows"();
--> statement-breakpoint
-- A project that leaves its organization or disappears (a cached empty list would hide the 404).
CREATE TRIGGER "projects_cache" AFTER UPDATE OF "org_id" OR DELETE ON "projects"
  FOR EACH ROW EXECUTE FUNCTION "vigie_notify_workflows"();
