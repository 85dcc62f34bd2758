import { useQuery } from "@tanstack/react-query";
import { api, data } from "../../api/client";
import { type Session, sessionQuery } from "../../api/session";
import { formatDate } from "../../format";
import { useI18n, useWords } from "../../i18n/i18n";
import { useCurrent } from "../../layout/current";
import { csafWords } from "./words";

/** A CVE's page: the advisories the organization's CSAF providers publish on it (GET …/csaf/advisories?cve=). */
export function CveAdvisories({ cveId }: { cveId: string }) {
  const { data: session } = useQuery(sessionQuery);
  const w = useWords(csafWords);
  return (
    <>
      <h2>{w.cveTitle}</h2>
      {session ? <Of cveId={cveId} session={session} /> : null}
    </>
  );
}

function Of({ cveId, session }: { cveId: string; session: Session }) {
  const w = useWords(csafWords);
  const { lang } = useI18n();
  const { org } = useCurrent(session);
  const list = useQuery({
    queryKey: ["csaf-advisories", org?.id, cveId],
    enabled: !!org,
    queryFn: () =>
      data(
        api.GET("/api/v1/organizations/{org_id}/csaf/advisories", {
          params: { path: { org_id: org!.id }, query: { cve: cveId, page_size: 20 } },
        }),
      ),
  });
  if (!org) return <p>{w.cveNoOrg}</p>;
  if (!list.data) return null;
  if (!list.data.items.length) return <p>{w.cveNone}</p>;
  return (
    <ul className="plain-list">
      {list.data.items.map((a) => (
        <li key={a.id}>
          {/^https?:\/\//i.test(a.url) ? <a href={a.url}>{a.tracking_id}</a> : a.tracking_id} — {a.title} ({a.editeur},{" "}
          {w.version(a.version)}, {w.released(formatDate(a.current_release_date, lang))})
        </li>
      ))}
    </ul>
  );
}
