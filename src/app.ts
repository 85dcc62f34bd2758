import type { FastifyInstance, FastifyRequest } from "fastify";
import type { Logger } from "pino";
import type { Config } from "./config.js";
import { ApiKeyAuthenticator, rateHeaders, type WindowQuota } from "./platform/auth/api-key-auth.js";
import type { ProjectScope } from "./platform/auth/context.js";
import { CacheFeed, PROJECT_TOPIC } from "./platform/db/cache-feed.js";
import type { Database } from "./platform/db/client.js";
import { buildServer } from "./platform/http/server.js";
import { registerWeb } from "./platform/http/web.js";
import { ApiKeysService } from "./modules/apikeys/apikeys.service.js";
import { apiKeysRoutes } from "./modules/apikeys/apikeys.routes.js";
import { organizationsRepository } from "./modules/organizations/organizations.repository.js";
import { OrganizationsService } from "./modules/organizations/organizations.service.js";
import { organizationsRoutes } from "./modules/organizations/organizations.routes.js";
import { ProjectsService } from "./modules/projects/projects.service.js";
import { projectsRoutes } from "./modules/projects/projects.routes.js";
import { SessionsService } from "./modules/sessions/sessions.service.js";
import { SIGN_IN_PATHS, sessionsRoutes } from "./modules/sessions/sessions.routes.js";
import { sessionToken } from "./platform/auth/credentials.js";
import { usersRepository } from "./modules/users/users.repository.js";
import { UsersService } from "./modules/users/users.service.js";
import { membersRoutes } from "./modules/users/users.routes.js";
import { ProjectAccess } from "./modules/projects/projects.access.js";
import type { WorkflowListRow } from "./modules/workflows/workflows.repository.js";
import { WorkflowsService } from "./modules/workflows/workflows.service.js";
import { workflowsRoutes } from "./modules/workflows/workflows.routes.js";
import { VERSION } from "./version.js";
import { ArticlesService } from "./modules/articles/articles.service.js";
import { articlesRoutes } from "./modules/articles/articles.routes.js";
import { feedsRoutes } from "./modules/feeds/feeds.routes.js";
import { cvesRepository } from "./modules/cves/cves.repository.js";
import { CvesService } from "./modules/cves/cves.service.js";
import { cvesRoutes } from "./modules/cves/cves.routes.js";
import { VulnerabilitiesService } from "./modules/vulnerabilities/vulnerabilities.service.js";
import { vulnerabilitiesRoutes } from "./modules/vulnerabilities/vulnerabilities.routes.js";
import { FeedsService } from "./feeds/feeds.service.js";
import { AlertsService } from "./modules/alerts/alerts.service.js";
import { alertsRoutes } from "./modules/alerts/alerts.routes.js";
import { stacksRepository } from "./modules/stacks/stacks.repository.js";
import { urlsRepository } from "./modules/urls/urls.repository.js";
import { StacksService } from "./modules/stacks/stacks.service.js";
import { SbomService } from "./modules/sbom/sbom.service.js";
import { ItemMatching } from "./matching/background.js";
import { sbomRoutes } from "./modules/sbom/sbom.routes.js";
import { stacksRoutes } from "./modules/stacks/stacks.routes.js";
import { tagsRepository } from "./modules/tags/tags.repository.js";
import { TagsService } from "./modules/tags/tags.service.js";
import { tagsRoutes } from "./modules/tags/tags.routes.js";
import { CasesService } from "./modules/cases/cases.service.js";
import { casesRoutes } from "./modules/cases/cases.routes.js";
import { casesRepository } from "./modules/cases/cases.repository.js";
import { CsafService } from "./modules/csaf/csaf.service.js";
import { vexRepository } from "./modules/vex/vex.repository.js";
import { csafRoutes } from "./modules/csaf/csaf.routes.js";
import { VexService } from "./modules/vex/vex.service.js";
import { vexRoutes } from "./modules/vex/vex.routes.js";
import { projectsRepository } from "./modules/projects/projects.repository.js";
import { RisksService } from "./modules/risks/risks.service.js";
import { risksRoutes } from "./modules/risks/risks.routes.js";
import { StatsService } from "./modules/stats/stats.service.js";
import { statsRoutes } from "./modules/stats/stats.routes.js";
import { CaseExpiry } from "./modules/cases/cases.expiry.js";
import { GraphSecrets } from "./engine/secret-params.js";
import { loadSecretKey, SecretBox } from "./platform/secrets.js";
import { notifyHandlers, type NotifyActionName } from "./engine/notify/index.js";
import type { ActionHandlers } from "./engine/actions.js";
import { dataActions } from "./modules/runs/runs.actions.js";
import { RunsService } from "./modules/runs/runs.service.js";
import { DigestsService } from "./modules/digests/digests.service.js";
import { digestsRoutes } from "./modules/digests/digests.routes.js";
import { type DigestSender, digestSender } from "./engine/notify/digest-send.js";
import { runsRoutes } from "./modules/runs/runs.routes.js";
import { registerMcp } from "./mcp/http.js";
import { UrlsService } from "./modules/urls/urls.service.js";
import { urlsRoutes } from "./modules/urls/urls.routes.js";
import { createScanner } from "./modules/urls/urls.scan.js";
import { loadFingerprints, type Fingerprints } from "./modules/urls/urls.fingerprints.js";
import { ReportsService } from "./modules/reports/reports.service.js";
import { reportsRoutes } from "./modules/reports/reports.routes.js";
import { EolService } from "./modules/eol/eol.service.js";
import { EolNotices } from "./modules/eol/eol.notices.js";
import { eolRoutes } from "./modules/eol/eol.routes.js";
import { cyclesOfItems, productsNamed } from "./modules/eol/eol.stack.js";
import { createOps, type Ops } from "./ops.js";

declare module "fastify" {
  interface FastifyRequest {
    /** The organization's call window, for the X-RateLimit-* headers (API key requests). */
    rateQuota: WindowQuota | null;
  }
}

export interface Services {
  /** LISTEN/NOTIFY behind the in-memory caches; started and stopped with the HTTP app. */
  cacheFeed: CacheFeed;
  authenticator: ApiKeyAuthenticator;
  /** Tenancy of the project-scoped routes. */
  projectAccess: ProjectAccess;
  organizations: OrganizationsService;
  projects: ProjectsService;
  apiKeys: ApiKeysService;
  users: UsersService;
  sessions: SessionsService;
  workflows: WorkflowsService;
  cves: CvesService;
  vulnerabilities: VulnerabilitiesService;
  articles: ArticlesService;
  feeds: FeedsService;
  stacks: StacksService;
  /** SBOMs in stacks: uploads by difference, the CycloneDX export. */
  sbom: SbomService;
  /** Broad stack items: their alerts raised in batches by the items-match job, with their progress. */
  itemMatching: ItemMatching;
  tags: TagsService;
  alerts: AlertsService;
  cases: CasesService;
  risks: RisksService;
  stats: StatsService;
  caseExpiry: CaseExpiry;
  /** endoflife.date products and the projects' subscriptions. */
  eol: EolService;
  /** The eol-notices job. */
  eolNotices: EolNotices;
  /** Secret action parameters: sealed on write, masked in answers, decrypted for the handlers (decryptParams). */
  secrets: GraphSecrets;
  /** The workflow engine: outbox events to runs, runs executed through the action handlers. */
  runs: RunsService;
  /** Digests: notify nodes that gather their events and send them on a schedule (issue 37). */
  digests: DigestsService;
  /** Evidence reports: generation, versions, sync until frozen, find-again. */
  reports: ReportsService;
  /** Monitored URLs and their scans. */
  urls: UrlsService;
  /** VEX out (the cases as CycloneDX, CSAF, OpenVEX) and in (a supplier's statements as proposals). */
  vex: VexService;
  csaf: CsafService;
}

/** Options of the composition root (tests inject the notification handlers). */
export interface ServiceOptions {
  /** The notify_* handlers (default: webhook, SMTP, Slack and Teams as configured). */
  notify?: Pick<ActionHandlers, NotifyActionName>;
  /** How digests are sent (default: the same carriers as notify, as configured). */
  digestSender?: DigestSender;
  /** Addresses the URL scans may reach whatever the SSRF guard says (tests: their local servers). */
  scanAllowAddresses?: readonly string[];
  /** The process's logger: failed notification attempts and feed sync failures are logged to it at warn. */
  logger?: Logger;
}

/** The composition root: one instance of each service over one database. */
export function createServices(database: Database, config: Config, options: ServiceOptions = {}): Services {
  const cves = new CvesService(database.db);
  const cacheFeed = new CacheFeed(database);
  // The key is read (or the key file created) on first use: a command that touches no secret writes no file.
  const secretBox = new SecretBox(() => loadSecretKey(config));
  const secrets = new GraphSecrets(secretBox);
  const workflows = new WorkflowsService(
    database,
    cacheFeed.cache<readonly WorkflowListRow[]>(PROJECT_TOPIC, 10_000, "workflow_lists"),
    secrets,
  );
  const authenticator = new ApiKeyAuthenticator(database, config.defaultMaxApiCallsPerHour, cacheFeed);
  const tags = new TagsService(database.db);
  const eol = new EolService(database.db);
  // Broad items' alerts in bounded batches (the items-match job; ADR 0037).
  const itemMatching = new ItemMatching(database.db, config.matching, options.logger);
  const alerts = new AlertsService(
    database.db,
    tagsRepository,
    stacksRepository,
    urlsRepository,
    (projectId) => eol.countInProject(projectId),
    itemMatching,
  );
  const cases = new CasesService(database.db, tagsRepository);
  const reports = new ReportsService(database.db);
  const stats = new StatsService(database.db);
  // Digests (issue 37): notify nodes whose delivery is a digest record their events; the digests-send job sends them.
  const digests = new DigestsService(
    database.db,
    {
      send: options.digestSender ?? digestSender(config.notify, { log: options.logger }),
      decrypt: (action, params) => secrets.decryptParams(action, params),
      messageFor: (runId) => runs.messageFor(runId),
      lang: async (projectId) => (await runs.notificationSettings({ id: projectId } as ProjectScope)).language,
    },
    workflows,
    { publicUrl: config.runs.publicUrl, leaseSeconds: config.digests.leaseSeconds },
  );
  const handlers: ActionHandlers = {
    ...dataActions({ cases, tags, alerts, reports }),
    // Secret params (webhook secret, Slack/Teams URLs) are stored sealed: decrypted just before the call.
    ...digests.deferring(secrets.decrypting(options.notify ?? notifyHandlers(config.notify, { log: options.logger }))),
  };
  // Runs (and dry runs) evaluate workflows on the merged CVE record (every field unknown when Vigie holds none).
  const runs = new RunsService(database.db, handlers, (ex, ids) => cves.factsMany(ex, ids), workflows, config.runs);
  // Throttled runs put their events into the workflow's next digest instead of dropping them.
  runs.useOverflow(digests.overflow);
  // A key revoked or a plan changed: drop cached key contexts here at once (the database's triggers
  // notify every process at commit, this one included).
  const authChanged = async () => authenticator.invalidate();
  const stacks = new StacksService(database.db, tagsRepository, cvesRepository, itemMatching, cyclesOfItems);
  // The fingerprints (7,586 technologies, ~0.4 s to compile) are read at the first scan, not at start-up.
  let fingerprints: Fingerprints | null = null;
  const scanner = createScanner(
    {
      allowPrivate: config.urls.allowPrivateTargets,
      timeoutMs: config.urls.timeoutMs,
      maxBodyBytes: 2 * 1024 * 1024,
      maxRedirects: 5,
      allowAddresses: options.scanAllowAddresses,
    },
    () => (fingerprints ??= loadFingerprints(config.urls.fingerprintsDir ?? undefined)),
  );
  return {
    cacheFeed,
    authenticator,
    projectAccess: new ProjectAccess(database, cacheFeed.cache<ProjectScope>(PROJECT_TOPIC, 10_000, "project_scopes")),
    organizations: new OrganizationsService(database.db, authChanged),
    projects: new ProjectsService(database.db, (tx, project) => workflows.createDefault(tx, project), organizationsRepository),
    apiKeys: new ApiKeysService(database.db, authChanged, organizationsRepository),
    users: new UsersService(database.db, organizationsRepository),
    sessions: new SessionsService(database, config, usersRepository, organizationsRepository),
    workflows,
    cves,
    vulnerabilities: new VulnerabilitiesService(database.db),
    articles: new ArticlesService(database.db),
    // The EOL sync asks first for the products the stacks and subscriptions name (feeds import no module).
    feeds: new FeedsService(database.db, config.feeds, options.logger, { eol: productsNamed }),
    stacks,
    sbom: new SbomService(database.db, stacksRepository, organizationsRepository, itemMatching),
    itemMatching,
    tags,
    alerts,
    cases,
    risks: new RisksService(database.db, casesRepository, projectsRepository, tagsRepository),
    stats,
    caseExpiry: new CaseExpiry(database.db),
    eol,
    eolNotices: new EolNotices(database.db),
    secrets,
    runs,
    digests,
    reports,
    urls: new UrlsService(database.db, config.urls, scanner, stacks),
    vex: new VexService(database.db, cases, config.runs.publicUrl),
    csaf: new CsafService(
      database.db,
      config.feeds,
      vexRepository,
      options.logger,
      config.csafAllowHttp,
      config.urls.allowPrivateTargets,
      secretBox,
    ),
  };
}

/** The HTTP application over the services. */
export async function buildApp(opts: {
  config: Config;
  database: Database;
  logger: Logger;
  services?: Services;
  /** The web application's build (default: dist/web next to the compiled server). */
  webDir?: string;
}): Promise<{ app: FastifyInstance; services: Services; ops: Ops }> {
  const { config, database, logger } = opts;
  const services = opts.services ?? createServices(database, config, { logger });
  const ops = createOps(config, database, services);
  const apiKey = async (req: FastifyRequest) => {
    const { ctx, quota } = await services.authenticator.authenticate(req.headers.authorization);
    req.rateQuota = quota;
    return ctx;
  };
  const app = await buildServer({
    logger,
    version: VERSION,
    trustProxy: config.trustProxy,
    limits: config.http,
    signInPaths: SIGN_IN_PATHS,
    routes: [
      ...ops.routes,
      ...organizationsRoutes(services.organizations),
      ...projectsRoutes(services.projects),
      ...workflowsRoutes(services.workflows),
      ...runsRoutes(services.runs),
      ...digestsRoutes(services.digests),
      ...cvesRoutes(services.cves),
      ...vulnerabilitiesRoutes(services.vulnerabilities),
      ...articlesRoutes(services.articles),
      ...feedsRoutes(services.feeds, services.csaf),
      ...stacksRoutes(services.stacks),
      ...sbomRoutes(services.sbom),
      ...tagsRoutes(services.tags),
      ...alertsRoutes(services.alerts),
      ...casesRoutes(services.cases, services.caseExpiry),
      ...vexRoutes(services.vex),
      ...csafRoutes(services.csaf),
      ...risksRoutes(services.risks),
      ...reportsRoutes(services.reports),
      ...eolRoutes(services.eol),
      ...statsRoutes(services.stats),
      ...urlsRoutes(services.urls),
      ...sessionsRoutes(services.sessions, config),
      ...apiKeysRoutes(services.apiKeys),
      ...membersRoutes(services.users),
    ],
    auth: {
      apiKey,
      session: (req) => services.sessions.authenticate(sessionToken(req)),
    },
    projects: services.projectAccess,
  });
  ops.metrics.instrument(app);
  // The MCP server: the same API keys, the same services and project resolution as the routes.
  registerMcp(app, {
    authenticate: apiKey,
    headers: (req) => (req.rateQuota ? rateHeaders(req.rateQuota.state()) : {}),
    services,
    version: VERSION,
  });
  // X-RateLimit-* are read when the answer leaves, so that the Remaining figures of one process's
  // answers never increase, in the order they are sent (429s carry theirs from the error).
  app.decorateRequest("rateQuota", null);
  app.addHook("onSend", (req, reply, payload, done) => {
    if (req.rateQuota) reply.headers(rateHeaders(req.rateQuota.state()));
    done(null, payload);
  });
  await registerWeb(app, opts.webDir);
  app.addHook("onReady", () => services.cacheFeed.start());
  app.addHook("onClose", async () => {
    await services.itemMatching.stop();
    await services.cacheFeed.close();
    await services.authenticator.close();
  });
  return { app, services, ops };
}

/** A worker's HTTP server (VIGIE_ROLE=worker): /healthz, /readyz and /metrics, nothing else. */
export async function buildOpsServer(opts: { config: Config; database: Database; logger: Logger; services: Services }): Promise<{
  app: FastifyInstance;
  ops: Ops;
}> {
  const ops = createOps(opts.config, opts.database, opts.services);
  const refuse = async (): Promise<never> => {
    throw new Error("a worker serves no authenticated route");
  };
  const app = await buildServer({
    logger: opts.logger,
    version: VERSION,
    trustProxy: opts.config.trustProxy,
    limits: opts.config.http,
    signInPaths: [],
    routes: ops.routes,
    auth: { apiKey: refuse, session: refuse },
    projects: opts.services.projectAccess,
    docs: false,
  });
  ops.metrics.instrument(app);
  return { app, ops };
}
