import { useQuery } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { type Session, sessionQuery } from "../api/session";
import { formatDate } from "../format";
import { useI18n } from "../i18n/i18n";
import { useCurrent } from "../layout/current";

/** The landing screen: who is signed in, the current organization, project and role. */
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
      <p className="muted">{t.homeSessionEnds(formatDate(session.expires_at, lang))}</p>
      <p>
        <Link to="/feeds">{t.feedsTitle}</Link>
      </p>
    </section>
  );
}
