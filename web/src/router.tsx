import { QueryClient } from "@tanstack/react-query";
import {
  createRootRouteWithContext,
  createRoute,
  createRouter,
  lazyRouteComponent,
  notFound,
  Outlet,
  redirect,
} from "@tanstack/react-router";
import { whenSessionExpires } from "./api/client";
import { sessionQuery } from "./api/session";
import { chooseProject, current, currentProjectId } from "./layout/current";
import { Shell } from "./layout/Shell";
import { NotFound, NotFoundPage } from "./screens/NotFound";
import { validateAlertSearch } from "./screens/alerts/search";
import { validateCveSearch } from "./screens/cves/search";
import { type StatsSearch, validateStatsSearch } from "./screens/stats/search";

// The client routes (README, Web application). None starts with a server path (/api, /auth, /docs,
// /mcp, /projects, /organizations, /assets, /openapi.json): the server answers index.html for the
// others (src/platform/http/web.ts). Each screen is its own chunk (lazyRouteComponent).

export const queryClient = new QueryClient({
  defaultOptions: { queries: { retry: (n, err) => n < 2 && !(err instanceof Error && "status" in err && Number(err.status) < 500) } },
});

const rootRoute = createRootRouteWithContext<{ queryClient: QueryClient }>()({ component: Outlet, notFoundComponent: NotFoundPage });

/** Only a local path is a place to come back to after signing in (never another site). */
function localPath(value: unknown): string | undefined {
  return typeof value === "string" && value.startsWith("/") && !value.startsWith("//") ? value : undefined;
}

export interface LoginSearch {
  /** The session ended while in use. */
  expired?: boolean;
  /** Just signed out. */
  out?: boolean;
  /** Where to go once signed in. */
  redirect?: string;
}

const loginRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/login",
  validateSearch: (s: Record<string, unknown>): LoginSearch => ({
    ...(s.expired === true && { expired: true }),
    ...(s.out === true && { out: true }),
    ...(localPath(s.redirect) && { redirect: localPath(s.redirect) }),
  }),
  component: lazyRouteComponent(() => import("./screens/Login"), "Login"),
});

/** Every screen but the login: signed in, inside the shell (navigation, switchers). */
const appRoute = createRoute({
  getParentRoute: () => rootRoute,
  id: "app",
  beforeLoad: async ({ context, location }) => {
    // A session known is trusted until a call answers 401; none known (first visit, signed out): ask.
    const session =
      context.queryClient.getQueryData(sessionQuery.queryKey) ?? (await context.queryClient.fetchQuery({ ...sessionQuery, staleTime: 0 }));
    if (!session) throw redirect({ to: "/login", search: location.href === "/" ? {} : { redirect: location.href } });
    return { session };
  },
  component: Shell,
});

/** `/`: the current project's home (the one chosen last, else the first), or the home without a project. */
const homeRoute = createRoute({
  getParentRoute: () => appRoute,
  path: "/",
  beforeLoad: ({ context }) => {
    const { project } = current(context.session, currentProjectId());
    if (project) throw redirect({ to: "/p/$projectId", params: { projectId: project.id } });
  },
  component: lazyRouteComponent(() => import("./screens/home/Home"), "Home"),
});

/**
 * `/p/$projectId/…`: the screens of one project. The project must be one of the session's (else
 * "page not found"); it becomes the current project. A project screen is a child of this route.
 */
const projectRoute = createRoute({
  getParentRoute: () => appRoute,
  path: "/p/$projectId",
  beforeLoad: ({ context, params }) => {
    const found = current(context.session, params.projectId);
    if (found.project?.id !== params.projectId) return { org: null, project: null };
    chooseProject(params.projectId);
    return found;
  },
  // Thrown from the loader: thrown from beforeLoad, "not found" would replace the whole page.
  loader: ({ context }) => {
    if (!context.project) throw notFound();
  },
  // Drawn in place of this route's (absent) component: inside the shell.
  notFoundComponent: NotFound,
});

const projectHomeRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: "/",
  component: lazyRouteComponent(() => import("./screens/home/Home"), "Home"),
});

const workflowsRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: "workflows",
  component: lazyRouteComponent(() => import("./screens/workflows/WorkflowsList"), "WorkflowsList"),
});

const workflowRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: "workflows/$workflowId",
  component: lazyRouteComponent(() => import("./screens/workflows/WorkflowEditor"), "WorkflowEditor"),
});

// Stacks, end of life, monitored URLs (web/src/screens/{stacks,eol,urls}/).
const stacksRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: "stacks",
  component: lazyRouteComponent(() => import("./screens/stacks/Stacks"), "Stacks"),
});

const stackRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: "stacks/$stackId",
  component: lazyRouteComponent(() => import("./screens/stacks/StackDetail"), "StackDetail"),
});

const eolRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: "eol",
  component: lazyRouteComponent(() => import("./screens/eol/Eol"), "Eol"),
});

const urlsRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: "urls",
  component: lazyRouteComponent(() => import("./screens/urls/Urls"), "Urls"),
});

const feedsRoute = createRoute({
  getParentRoute: () => appRoute,
  path: "/feeds",
  component: lazyRouteComponent(() => import("./screens/Feeds"), "Feeds"),
});

/** The alert inbox: its filters are the URL's search params (a view can be shared). */
const alertsRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: "alerts",
  validateSearch: validateAlertSearch,
  component: lazyRouteComponent(() => import("./screens/alerts/Alerts"), "Alerts"),
});

/** The CVE explorer (the corpus is no project's). */
const cvesRoute = createRoute({
  getParentRoute: () => appRoute,
  path: "/cves",
  validateSearch: validateCveSearch,
  component: lazyRouteComponent(() => import("./screens/cves/Cves"), "Cves"),
});

const cveRoute = createRoute({
  getParentRoute: () => appRoute,
  path: "/cves/$cveId",
  component: lazyRouteComponent(() => import("./screens/cves/CveDetail"), "CveDetail"),
});

// Statistics wall (screens/stats): the corpus, or the CVEs of a project (?project_id=).
const statsRoute = createRoute({
  getParentRoute: () => appRoute,
  path: "/stats",
  validateSearch: (s: Record<string, unknown>): StatsSearch => validateStatsSearch(s),
  component: lazyRouteComponent(() => import("./screens/stats/Stats"), "Stats"),
});

// Evidence reports of a project (screens/reports).
const reportsRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: "reports",
  component: lazyRouteComponent(() => import("./screens/reports/Reports"), "Reports"),
});

// Settings: the current organization's, one sub-route per tab (screens/settings/).
const settingsRoute = createRoute({
  getParentRoute: () => appRoute,
  path: "/settings",
  component: lazyRouteComponent(() => import("./screens/settings/Settings"), "Settings"),
});
const settingsRoutes = [
  createRoute({
    getParentRoute: () => settingsRoute,
    path: "/",
    beforeLoad: () => {
      throw redirect({ to: "/settings/organization" });
    },
  }),
  createRoute({
    getParentRoute: () => settingsRoute,
    path: "organization",
    component: lazyRouteComponent(() => import("./screens/settings/Organization"), "Organization"),
  }),
  createRoute({
    getParentRoute: () => settingsRoute,
    path: "members",
    component: lazyRouteComponent(() => import("./screens/settings/Members"), "Members"),
  }),
  createRoute({
    getParentRoute: () => settingsRoute,
    path: "keys",
    component: lazyRouteComponent(() => import("./screens/settings/ApiKeys"), "ApiKeys"),
  }),
  createRoute({
    getParentRoute: () => settingsRoute,
    path: "project",
    component: lazyRouteComponent(() => import("./screens/settings/ProjectSettings"), "ProjectSettings"),
  }),
  createRoute({
    getParentRoute: () => settingsRoute,
    path: "csaf",
    component: lazyRouteComponent(() => import("./screens/csaf/CsafProviders"), "CsafProviders"),
  }),
  createRoute({
    getParentRoute: () => settingsRoute,
    path: "session",
    component: lazyRouteComponent(() => import("./screens/settings/Session"), "SessionSettings"),
  }),
];

// Cases (web/src/screens/cases): the project's board and table, one case, the organization's risk register.
const casesRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: "cases",
  component: lazyRouteComponent(() => import("./screens/cases/Cases"), "Cases"),
});
const caseRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: "cases/$cveId",
  component: lazyRouteComponent(() => import("./screens/cases/CaseDetail"), "CaseDetail"),
});
// VEX: a supplier's statements imported as proposals the team decides (web/src/screens/vex).
const vexRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: "cases/vex",
  component: lazyRouteComponent(() => import("./screens/vex/VexProposals"), "VexProposals"),
});
const risksRoute = createRoute({
  getParentRoute: () => appRoute,
  path: "/risks",
  component: lazyRouteComponent(() => import("./screens/cases/Risks"), "Risks"),
});
const riskRoute = createRoute({
  getParentRoute: () => appRoute,
  path: "/risks/$riskId",
  component: lazyRouteComponent(() => import("./screens/cases/Risks"), "RiskDetail"),
});

export const routeTree = rootRoute.addChildren([
  loginRoute,
  appRoute.addChildren([
    homeRoute,
    feedsRoute,
    cvesRoute,
    cveRoute,
    risksRoute,
    riskRoute,
    statsRoute,
    settingsRoute.addChildren(settingsRoutes),
    projectRoute.addChildren([
      projectHomeRoute,
      alertsRoute,
      workflowsRoute,
      workflowRoute,
      casesRoute,
      vexRoute,
      caseRoute,
      reportsRoute,
      stacksRoute,
      stackRoute,
      eolRoute,
      urlsRoute,
    ]),
  ]),
]);

export const router = createRouter({ routeTree, context: { queryClient }, defaultPreload: "intent" });

declare module "@tanstack/react-router" {
  interface Register {
    router: typeof router;
  }
}

// A call answered 401 while signed in: the session is over; back to the login screen, saying so.
whenSessionExpires(() => {
  queryClient.setQueryData(sessionQuery.queryKey, null);
  if (router.state.location.pathname !== "/login") {
    void router.navigate({ to: "/login", search: { expired: true, redirect: router.state.location.href } });
  }
});
