import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Link, Outlet, useLocation, useNavigate } from "@tanstack/react-router";
import { useEffect, useId, useRef, useState } from "react";
import { api } from "../api/client";
import { type Session, sessionQuery } from "../api/session";
import { useI18n, useWords } from "../i18n/i18n";
import type { Lang } from "../i18n/messages";
import { useCellLabels } from "./cellLabels";
import { useCurrent } from "./current";
import { HelpMenu } from "./help";
import { navWords } from "./nav";

/** The signed-in layout: header (brand, navigation, switchers, help, language, sign-out) and the screen. */
export function Shell() {
  const { data: session } = useQuery(sessionQuery);
  return session ? <ShellOf session={session} /> : null;
}

function ShellOf({ session }: { session: Session }) {
  const { t } = useI18n();
  const { project } = useCurrent(session);
  // Narrow windows (CSS, ≤ 800 px): the navigation and the switchers fold behind « Menu »; a new
  // screen folds them again. Wide windows show them whatever this says.
  const [menuOpen, setMenuOpen] = useState(false);
  const { href } = useLocation();
  // biome-ignore lint/correctness/useExhaustiveDependencies: closing on each new location is the point.
  useEffect(() => setMenuOpen(false), [href]);
  const main = useRef<HTMLElement>(null);
  useCellLabels(main);
  return (
    <div className={menuOpen ? "shell menu-open" : "shell"}>
      <a className="skip-link" href="#main">
        {t.skipToContent}
      </a>
      <header className="topbar">
        <Link to="/" className="brand">
          {t.appName}
        </Link>
        <button
          type="button"
          className="menu-button"
          aria-expanded={menuOpen}
          aria-controls="main-nav"
          onClick={() => setMenuOpen(!menuOpen)}
        >
          {t.menu}
        </button>
        <div className="topbar-tools">
          <ProjectSwitcher session={session} />
          <HelpMenu />
          <LanguageSwitch />
          <SignOut email={session.user.email} />
        </div>
      </header>
      <div className="body">
        <MainNav projectId={project?.id ?? null} />
        <main id="main" tabIndex={-1} ref={main}>
          <Outlet />
        </main>
      </div>
    </div>
  );
}

/** The navigation: the current project's screens, then the organization's and the corpus's. */
function MainNav({ projectId }: { projectId: string | null }) {
  const { t } = useI18n();
  const w = useWords(navWords);
  const params = { projectId: projectId ?? "" };
  return (
    <nav aria-label={t.mainNav} className="mainnav" id="main-nav">
      {projectId && (
        <>
          <h2 className="nav-group">{w.project}</h2>
          <Link to="/p/$projectId/alerts" params={params}>
            {w.alerts}
          </Link>
          <Link to="/p/$projectId" params={params} activeOptions={{ exact: true }}>
            {w.home}
          </Link>
          <Link to="/p/$projectId/cases" params={params}>
            {w.cases}
          </Link>
          <Link to="/p/$projectId/stacks" params={params}>
            {w.stacks}
          </Link>
          <Link to="/p/$projectId/workflows" params={params}>
            {w.workflows}
          </Link>
          <Link to="/p/$projectId/urls" params={params}>
            {w.urls}
          </Link>
          <Link to="/p/$projectId/eol" params={params}>
            {w.eol}
          </Link>
          <Link to="/p/$projectId/reports" params={params}>
            {w.reports}
          </Link>
        </>
      )}
      <h2 className="nav-group">{w.organization}</h2>
      {!projectId && (
        <Link to="/" activeOptions={{ exact: true }}>
          {w.home}
        </Link>
      )}
      <Link to="/cves">{w.cves}</Link>
      <Link to="/stats">{w.stats}</Link>
      <Link to="/risks">{w.risks}</Link>
      <Link to="/feeds">{w.feeds}</Link>
      <Link to="/settings">{w.settings}</Link>
    </nav>
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
