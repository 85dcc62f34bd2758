import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Link, Outlet, useLocation, useNavigate } from "@tanstack/react-router";
import { useId } from "react";
import { api } from "../api/client";
import { type Session, sessionQuery } from "../api/session";
import { useI18n, useWords } from "../i18n/i18n";
import { words as reportsNav } from "../screens/reports/words";
import { navWords } from "../screens/stacks/nav";
import { words as statsNav } from "../screens/stats/words";
import type { Lang } from "../i18n/messages";
import { navWords as casesNav } from "../screens/cases/nav";
import { useCurrent } from "./current";

/** The signed-in layout: header (brand, navigation, switchers, language, sign-out) and the screen. */
export function Shell() {
  const { data: session } = useQuery(sessionQuery);
  return session ? <ShellOf session={session} /> : null;
}

function ShellOf({ session }: { session: Session }) {
  const { t, lang } = useI18n();
  const cw = useWords(casesNav);
  const { project } = useCurrent(session);
  const statsWords = useWords(statsNav);
  const reportsWords = useWords(reportsNav);
  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        {t.skipToContent}
      </a>
      <header className="topbar">
        <Link to="/" className="brand">
          {t.appName}
        </Link>
        <nav aria-label={t.mainNav} className="mainnav">
          {project && (
            <Link to="/p/$projectId/alerts" params={{ projectId: project.id }}>
              {lang === "fr" ? "Alertes" : "Alerts"}
            </Link>
          )}
          {project ? (
            <Link to="/p/$projectId" params={{ projectId: project.id }} activeOptions={{ exact: true }}>
              {t.navHome}
            </Link>
          ) : (
            <Link to="/" activeOptions={{ exact: true }}>
              {t.navHome}
            </Link>
          )}
          {project && (
            <Link to="/p/$projectId/workflows" params={{ projectId: project.id }}>
              Workflows
            </Link>
          )}
          {project && (
            <Link to="/p/$projectId/cases" params={{ projectId: project.id }}>
              {cw.navCases}
            </Link>
          )}
          <Link to="/risks">{cw.navRisks}</Link>
          {project && <ProjectLinks projectId={project.id} />}
          <Link to="/cves">CVE</Link>
          <Link to="/feeds">{t.navFeeds}</Link>
          <Link to="/stats">{statsWords.title}</Link>
          {project && (
            <Link to="/p/$projectId/reports" params={{ projectId: project.id }}>
              {reportsWords.title}
            </Link>
          )}
          <Link to="/settings">{lang === "fr" ? "Paramètres" : "Settings"}</Link>
        </nav>
        <div className="topbar-tools">
          <ProjectSwitcher session={session} />
          <LanguageSwitch />
          <SignOut email={session.user.email} />
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        <Outlet />
      </main>
    </div>
  );
}

/** The links of the stacks, end-of-life and monitored-URL screens (their words beside them). */
function ProjectLinks({ projectId }: { projectId: string }) {
  const w = useWords(navWords);
  return (
    <>
      <Link to="/p/$projectId/stacks" params={{ projectId }}>
        {w.stacks}
      </Link>
      <Link to="/p/$projectId/eol" params={{ projectId }}>
        {w.eol}
      </Link>
      <Link to="/p/$projectId/urls" params={{ projectId }}>
        {w.urls}
      </Link>
    </>
  );
}

/**
 * One select listing each organization's projects (grouped). Choosing one opens the same screen of
 * that project (`/p/<id>/…`), or its home from a screen of no project.
 */
function ProjectSwitcher({ session }: { session: Session }) {
  const { t } = useI18n();
  const id = useId();
  const navigate = useNavigate();
  const { pathname } = useLocation();
  const { project } = useCurrent(session);
  const projects = session.organizations.flatMap((o) => o.projects);
  const choose = (projectId: string) => {
    const within = /^\/p\/[^/]+(\/.*)?$/.exec(pathname);
    void navigate({ href: within ? `/p/${projectId}${within[1] ?? ""}` : `/p/${projectId}` });
  };
  return (
    <div className="field-inline">
      <label htmlFor={id}>{t.project}</label>
      <select id={id} value={project?.id ?? ""} disabled={projects.length === 0} onChange={(e) => choose(e.target.value)}>
        {projects.length === 0 && <option value="">{t.noProject}</option>}
        {session.organizations.map((org) => (
          <optgroup key={org.id} label={`${t.organization} : ${org.name}`}>
            {org.projects.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name}
              </option>
            ))}
          </optgroup>
        ))}
      </select>
    </div>
  );
}

export function LanguageSwitch() {
  const { t, lang, setLang } = useI18n();
  const id = useId();
  return (
    <div className="field-inline">
      <label htmlFor={id}>{t.language}</label>
      <select id={id} value={lang} onChange={(e) => setLang(e.target.value as Lang)}>
        <option value="fr" lang="fr">
          Français
        </option>
        <option value="en" lang="en">
          English
        </option>
      </select>
    </div>
  );
}

function SignOut({ email }: { email: string }) {
  const { t } = useI18n();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const logout = useMutation({
    mutationFn: () => api.POST("/auth/logout"),
    onSettled: async () => {
      queryClient.clear();
      queryClient.setQueryData(sessionQuery.queryKey, null);
      await navigate({ to: "/login", search: { out: true } });
    },
  });
  return (
    <div className="signout">
      <span className="user">{t.signedInAs(email)}</span>
      <button type="button" className="button-secondary" onClick={() => logout.mutate()} disabled={logout.isPending}>
        {t.logout}
      </button>
    </div>
  );
}
