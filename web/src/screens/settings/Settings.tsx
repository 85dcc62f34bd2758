import { useQuery } from "@tanstack/react-query";
import { Link, Outlet } from "@tanstack/react-router";
import { type Role, type Session, sessionQuery } from "../../api/session";
import { useI18n, useWords } from "../../i18n/i18n";
import { useCurrent } from "../../layout/current";
import { SettingsContext } from "./access";
import { words } from "./words";

/**
 * `/settings`: the current organization's settings (the switcher's), one tab per section — its
 * organization, members, API keys, the current project's settings, the user's session.
 */
export function Settings() {
  const { data: session } = useQuery(sessionQuery);
  return session ? <SettingsOf session={session} /> : null;
}

function SettingsOf({ session }: { session: Session }) {
  const w = useWords(words);
  const { t } = useI18n();
  const { org, project } = useCurrent(session);
  return (
    <section aria-labelledby="settings-title" className="screen">
      <h1 id="settings-title">{w.title}</h1>
      {org ? (
        <>
          <p className="muted">{w.intro(org.name, t.role[org.role])}</p>
          <nav aria-label={w.tabs} className="tabs">
            <Link to="/settings/organization">{w.tabOrg}</Link>
            <Link to="/settings/members">{w.tabMembers}</Link>
            <Link to="/settings/keys">{w.tabKeys}</Link>
            <Link to="/settings/project">{w.tabProject}</Link>
            <Link to="/settings/csaf">{w.tabCsaf}</Link>
            <Link to="/settings/session">{w.tabSession}</Link>
          </nav>
          <SettingsContext.Provider
            value={{ session, org, project: org.projects.some((p) => p.id === project?.id) ? project : null, role: org.role }}
          >
            <Outlet />
          </SettingsContext.Provider>
        </>
      ) : (
        <p>{w.noOrg}</p>
      )}
    </section>
  );
}

/** Why something is hidden or disabled for this role: « <what> : réservé au rôle … ou supérieur. » (`id`: for aria-describedby). */
export function NeedsRole({ id, what, least }: { id?: string; what: string; least: Role }) {
  const w = useWords(words);
  const { t } = useI18n();
  return (
    <p id={id} className="notice">
      {w.needs(what, t.role[least])}
    </p>
  );
}
