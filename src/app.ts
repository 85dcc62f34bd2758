import type { FastifyInstance } from "fastify";
import type { Logger } from "pino";
import type { Config } from "./config.js";
import { ApiKeyAuthenticator, AUTH_CHANNEL, rateHeaders } from "./platform/auth/api-key-auth.js";
import type { Database } from "./platform/db/client.js";
import { buildServer } from "./platform/http/server.js";
import { ApiKeysService } from "./modules/apikeys/apikeys.service.js";
import { OrganizationsService } from "./modules/organizations/organizations.service.js";
import { organizationsRoutes } from "./modules/organizations/organizations.routes.js";
import { ProjectsService } from "./modules/projects/projects.service.js";
import { projectsRoutes } from "./modules/projects/projects.routes.js";
import { SessionsService } from "./modules/sessions/sessions.service.js";
import { sessionsRoutes, sessionToken } from "./modules/sessions/sessions.routes.js";
import { UsersService } from "./modules/users/users.service.js";
import { WorkflowsService } from "./modules/workflows/workflows.service.js";
import { workflowsRoutes } from "./modules/workflows/workflows.routes.js";
import { VERSION } from "./version.js";
import { ArticlesService } from "./modules/articles/articles.service.js";
import { articlesRoutes } from "./modules/articles/articles.routes.js";
import { CvesService } from "./modules/cves/cves.service.js";
import { cvesRoutes } from "./modules/cves/cves.routes.js";
import { VulnerabilitiesService } from "./modules/vulnerabilities/vulnerabilities.service.js";
import { vulnerabilitiesRoutes } from "./modules/vulnerabilities/vulnerabilities.routes.js";
import { FeedSync } from "./feeds/sync.js";
import { AlertsService } from "./modules/alerts/alerts.service.js";
import { alertsRoutes } from "./modules/alerts/alerts.routes.js";
import { StacksService } from "./modules/stacks/stacks.service.js";
import { stacksRoutes } from "./modules/stacks/stacks.routes.js";
import { TagsService } from "./modules/tags/tags.service.js";
import { tagsRoutes } from "./modules/tags/tags.routes.js";

export interface Services {
  authenticator: ApiKeyAuthenticator;
  organizations: OrganizationsService;
  projects: ProjectsService;
  apiKeys: ApiKeysService;
  users: UsersService;
  sessions: SessionsService;
  workflows: WorkflowsService;
  cves: CvesService;
  vulnerabilities: VulnerabilitiesService;
  articles: ArticlesService;
  feedSync: FeedSync;
  stacks: StacksService;
  tags: TagsService;
  alerts: AlertsService;
}

/** The composition root: one instance of each service over one database. */
export function createServices(database: Database, config: Config): Services {
  const cves = new CvesService(database.db);
  // A dry run evaluates the workflow on the merged CVE record (every field unknown when Vigie holds none).
  const workflows = new WorkflowsService(database, (ex, id) => cves.facts(ex, id));
  const authenticator = new ApiKeyAuthenticator(database, config.defaultMaxApiCallsPerHour);
  // A key revoked or a plan changed: drop cached key contexts here and in every other process.
  const authChanged = async () => {
    authenticator.invalidate();
    await database.notify(AUTH_CHANNEL);
  };
  return {
    authenticator,
    organizations: new OrganizationsService(database.db, authChanged),
    projects: new ProjectsService(database.db, workflows),
    apiKeys: new ApiKeysService(database.db, authChanged),
    users: new UsersService(database.db),
    sessions: new SessionsService(database, config),
    workflows,
    cves,
    vulnerabilities: new VulnerabilitiesService(database.db),
    articles: new ArticlesService(database.db),
    feedSync: new FeedSync(database.db, config),
    stacks: new StacksService(database.db),
    tags: new TagsService(database.db),
    alerts: new AlertsService(database.db),
  };
}

/** The HTTP application over the services. */
export async function buildApp(opts: { config: Config; database: Database; logger: Logger; services?: Services }): Promise<{ app: FastifyInstance; services: Services }> {
  const { config, database, logger } = opts;
  const services = opts.services ?? createServices(database, config);
  const app = await buildServer({
    logger,
    version: VERSION,
    trustProxy: config.trustProxy,
    limits: config.http,
    routes: [
      ...organizationsRoutes(services.organizations),
      ...projectsRoutes(services.projects),
      ...workflowsRoutes(services.workflows),
      ...cvesRoutes(services.cves),
      ...vulnerabilitiesRoutes(services.vulnerabilities),
      ...articlesRoutes(services.articles),
      ...stacksRoutes(services.stacks),
      ...tagsRoutes(services.tags),
      ...alertsRoutes(services.alerts),
      ...sessionsRoutes(services.sessions, config),
    ],
    auth: {
      apiKey: async (req, reply) => {
        const { ctx, rate } = await services.authenticator.authenticate(req.headers.authorization);
        reply.headers(rateHeaders(rate));
        return ctx;
      },
      session: (req) => services.sessions.authenticate(sessionToken(req)),
    },
  });
  app.addHook("onClose", () => services.authenticator.close());
  return { app, services };
}
