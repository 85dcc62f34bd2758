import { getRouteApi } from "@tanstack/react-router";

// The route objects a screen reads (context, params, search), by route id. A screen imports these,
// never `router.tsx`: the router imports every screen, so an import back would make a circle.
// The ids are checked against the route tree registered in router.tsx (a wrong id fails `tsc -p web`).

/** `/p/$projectId`: its context holds the current `org` and `project`. */
export const projectRoute = getRouteApi("/app/p/$projectId");
/** The alert inbox: its filters are the search params. */
export const alertsRoute = getRouteApi("/app/p/$projectId/alerts");
/** The CVE explorer: its filters are the search params. */
export const cvesRoute = getRouteApi("/app/cves");
/** One CVE. */
export const cveRoute = getRouteApi("/app/cves/$cveId");
