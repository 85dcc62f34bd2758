import { useQuery } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { api, data } from "../../api/client";
import { type Session, sessionQuery } from "../../api/session";
import { formatDate, formatParisDate } from "../../format";
import { useI18n, useWords } from "../../i18n/i18n";
import { useCurrent } from "../../layout/current";
import { PastDueList, usePastDue } from "../eol/PastDue";
import { feedsQuery } from "../Feeds";
import { alertQuery } from "../alerts/search";
import { words } from "./words";

/** The landing screen: who is signed in, the current organization, project and role, and the day's work. */
export function Home() {
  const { data: session } = useQuery(sessionQuery);
  return session ? <HomeOf session={session} /> : null;
}

function HomeOf({ session }: { session: Session }) {
  const { t, lang } = useI18n();
  const { org, project } = useCurrent(session);
  return (
    <section aria-labelledby="home-title" className="screen">
      <h1 id="home-title">{t.homeTitle}</h1>
      <p>{t.homeWelcome(session.user.email)}</p>
      {org ? (
        <dl className="facts">
          <dt>{t.organization}</dt>
          <dd>{org.name}</dd>
          <dt>{t.homeCurrent}</dt>
          <dd>{project?.name ?? t.noProject}</dd>
          <dt>{t.homeRole}</dt>
          <dd>{t.role[org.role]}</dd>
        </dl>
      ) : (
        <p>{t.homeNoOrg}</p>
      )}
      {org && project && <Today orgId={org.id} projectId={project.id} />}
      <p className="muted">{t.homeSessionEnds(formatDate(session.expires_at, lang))}</p>
    </section>
  );
}

/** In 14 Paris days (YYYY-MM-DD): the horizon of the exceptions worth a look today. */
function inFourteenDays(): string {
  return new Intl.DateTimeFormat("en-CA", { timeZone: "Europe/Paris" }).format(new Date(Date.now() + 14 * 86_400_000));
}

/** The day's work in the current project: what to triage, what expires, what reaches its end of life, stale feeds. */
function Today({ orgId, projectId }: { orgId: string; projectId: string }) {
  const { lang } = useI18n();
  const w = useWords(words);
  const path = { org_id: orgId, project_id: projectId };
  const stats = useQuery({
    queryKey: ["project-stats", projectId],
    queryFn: () => data(api.GET("/api/v1/organizations/{org_id}/projects/{project_id}/stats", { params: { path } })),
  });
  // The inbox's own queries (alertQuery): the P1 figure is what its link opens (the verified tab), the
  // "non vérifiable" ones are counted on their own line, as on the inbox's other tab.
  const p1Query = { ...alertQuery({ palier: ["P1"], is_read: false }), page_size: 1 };
  const p1 = useQuery({
    queryKey: ["alerts", projectId, p1Query],
    queryFn: () => data(api.GET("/api/v1/organizations/{org_id}/projects/{project_id}/alerts", { params: { path, query: p1Query } })),
  });
  const uncheckedQuery = { ...alertQuery({ is_read: false }, true), page_size: 1 };
  const unchecked = useQuery({
    queryKey: ["alerts", projectId, uncheckedQuery],
    queryFn: () =>
      data(api.GET("/api/v1/organizations/{org_id}/projects/{project_id}/alerts", { params: { path, query: uncheckedQuery } })),
  });
  const horizon = inFourteenDays();
  const expiring = useQuery({
    queryKey: ["cases", projectId, { has_exception: true, expiring_before: horizon }],
    queryFn: () =>
      data(
        api.GET("/api/v1/organizations/{org_id}/projects/{project_id}/cases", {
          params: { path, query: { has_exception: true, expiring_before: horizon, sort: "expires_on", page_size: 5 } },
        }),
      ),
  });
  const notices = useQuery({
    queryKey: ["eol-notices", projectId, { page_size: 5 }],
    queryFn: () =>
      data(api.GET("/api/v1/organizations/{org_id}/projects/{project_id}/eol-notices", { params: { path, query: { page_size: 5 } } })),
  });
  const pastDue = usePastDue(orgId, projectId);
  const feeds = useQuery(feedsQuery);
  const enabled = feeds.data?.sources.filter((s) => s.enabled);
  const summary = enabled && {
    enabled: enabled.length,
    stale: enabled.filter((s) => s.stale).length,
    never: enabled.filter((s) => !s.last_success_at).length,
    snapshot: enabled.filter((s) => !s.last_success_at && s.snapshot).length,
  };
  return (
    <div className="cards">
      <section aria-labelledby="today-triage" className="card">
        <h2 id="today-triage">{w.toTriage}</h2>
        {stats.data && (
          <ul className="figures">
            <li>
              <strong>{stats.data.unread_alerts}</strong> {w.unread}
            </li>
            <li data-figure="p1">
              <strong>{p1.data?.total ?? "…"}</strong> {w.unreadP1}
            </li>
            {!!unchecked.data?.total && (
              <li data-figure="unverified">
                <strong>{unchecked.data.total}</strong>{" "}
                <Link to="/p/$projectId/alerts" params={{ projectId }} search={{ unverified: true, is_read: false }}>
                  {w.unreadUnverified}
                </Link>
              </li>
            )}
            <li>
              <strong>{stats.data.kev_alerts}</strong> {w.kev}
            </li>
          </ul>
        )}
        <Link to="/p/$projectId/alerts" params={{ projectId }} search={{ palier: ["P1"], is_read: false }}>
          {w.openInbox}
        </Link>
      </section>
      <section aria-labelledby="today-expiring" className="card">
        <h2 id="today-expiring">{w.expiring}</h2>
        {expiring.data &&
          (expiring.data.items.length ? (
            <ul>
              {expiring.data.items.map((c) => (
                <li key={c.cve_id}>
                  <Link to="/p/$projectId/cases/$cveId" params={{ projectId, cveId: c.cve_id }}>
                    {c.cve_id}
                  </Link>{" "}
                  {c.exception?.expires_on && w.expiresOn(formatParisDate(c.exception.expires_on, lang))}
                </li>
              ))}
            </ul>
          ) : (
            <p className="muted">{w.noneExpiring}</p>
          ))}
        <Link to="/p/$projectId/cases" params={{ projectId }}>
          {w.openCases}
        </Link>
      </section>
      <section aria-labelledby="today-eol" className="card">
        <h2 id="today-eol">{w.eol}</h2>
        {pastDue.data && <PastDueList projectId={projectId} items={pastDue.data.items} />}
        {notices.data &&
          (notices.data.items.length ? (
            <ul>
              {notices.data.items.map((n) => (
                <li key={`${n.product_id}-${n.cycle}-${n.kind}-${n.stage}`}>{w.eolNotice(n.product_id, n.cycle, n.kind, n.due_on)}</li>
              ))}
            </ul>
          ) : (
            !pastDue.data?.items.length && <p className="muted">{w.noNotice}</p>
          ))}
      </section>
      <section aria-labelledby="today-feeds" className="card">
        <h2 id="today-feeds">{w.feeds}</h2>
        {summary && <p>{w.feedsState(summary)}</p>}
        <Link to="/feeds">{w.openFeeds}</Link>
      </section>
    </div>
  );
}
