import { useQuery } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { useState } from "react";
import { ApiError, api, data } from "../../api/client";
import type { components } from "../../api/schema";
import { formatDate } from "../../format";
import { useI18n, useWords } from "../../i18n/i18n";
import { cveRoute } from "../../routes";
import { originName } from "../alerts/explain";
import { formatDay, percent, score } from "./numbers";
import { words } from "./words";
import { CveAdvisories } from "../csaf/CveAdvisories";

type Affected = components["schemas"]["CveAffectedOut"];

/** The affected rows grouped by the source that states them (cna, adp, nvd, kev…), in their order. */
export function bySource(rows: Affected[]): [string, Affected[]][] {
  const groups = new Map<string, Affected[]>();
  for (const r of rows) groups.set(r.origin, [...(groups.get(r.origin) ?? []), r]);
  return [...groups];
}

/**
 * A row's versions written as the alerts write ranges (src/matching/decide.ts): "[10.2.0, 10.2.9-h1["
 * (the end excluded), "= 9.0.0" for one version, null for every version.
 */
export function rangeOf(r: Affected): string | null {
  const { version_from: from, version_to: to } = r;
  if (from === null && to === null) return null;
  if (from !== null && from === to) return `= ${from}`;
  const lo = from === null ? "]*" : `${r.version_from_inclusive ? "[" : "]"}${from}`;
  const hi = to === null ? "*[" : `${to}${r.version_to_inclusive ? "]" : "["}`;
  return `${lo}, ${hi}`;
}

/** `/cves/$cveId`: one CVE, its scores and their sources, KEV, ranges per source, measures, articles, advisories, PoCs. */
export function CveDetail() {
  const w = useWords(words);
  const { lang } = useI18n();
  const { cveId } = cveRoute.useParams();
  const cve = useQuery({
    queryKey: ["cves", cveId],
    queryFn: () => data(api.GET("/api/v1/cves/{cve_id}", { params: { path: { cve_id: cveId } } })),
  });
  const id = cve.data?.cve_id;
  const articles = useQuery({
    queryKey: ["articles", { cve_id: id }],
    enabled: !!id,
    queryFn: () => data(api.GET("/api/v1/articles", { params: { query: { cve_id: id, page_size: 20 } } })),
  });
  const advisories = useQuery({
    queryKey: ["vulnerabilities", { q: id }],
    enabled: !!id,
    queryFn: () => data(api.GET("/api/v1/vulnerabilities", { params: { query: { q: id, page_size: 20 } } })),
  });
  const c = cve.data;
  return (
    <section aria-labelledby="cve-title" className="screen cve-detail">
      <p>
        <Link to="/cves">{w.back}</Link>
      </p>
      <h1 id="cve-title">{c?.cve_id ?? cveId}</h1>
      {cve.isPending && <p role="status">{w.loading}</p>}
      {cve.isError && (
        <div role="alert" className="error">
          {cve.error instanceof ApiError && cve.error.status === 404 ? w.notFound : w.loadError}
        </div>
      )}
      {c && (
        <>
          <p className="badges">
            <span className={`badge sev-${c.severity}`}>{w.severities[c.severity] ?? c.severity}</span>
            {c.is_kev && <span className="badge badge-bad">KEV</span>}
            {c.has_poc && <span className="badge badge-warn">PoC</span>}
            {c.state === "REJECTED" && <span className="badge badge-idle">{w.rejected}</span>}
            {c.state === "REFERENCE_ONLY" && <span className="badge badge-idle">{w.referenceOnly}</span>}
          </p>
          {c.state === "REFERENCE_ONLY" && (
            <section aria-labelledby="cve-reference-only" className="notice" data-note="reference-only">
              <h2 id="cve-reference-only">{w.referenceOnlyTitle}</h2>
              <p>{w.referenceOnlyText}</p>
              <ul className="plain-list">
                {c.referenced_by.map((r) => (
                  <li key={r.id}>
                    <a href={r.url}>{r.id}</a> ({r.source}
                    {r.published ? `, ${formatDay(r.published, lang)}` : ""}){r.title ? ` — ${r.title}` : ""}
                  </li>
                ))}
              </ul>
            </section>
          )}
          <h2>{w.description}</h2>
          <p>{c.description ?? "—"}</p>

          <h2>{w.scores}</h2>
          <dl className="facts">
            <dt>{w.cvss}</dt>
            <dd>
              {c.cvss_score === null ? "—" : score(c.cvss_score, lang)}{" "}
              <span className="sub">{w.cvssOf(c.cvss_version, c.cvss_source)}</span>
              {c.cvss_vector && (
                <span className="sub">
                  {w.vector} : <code>{c.cvss_vector}</code>
                </span>
              )}
            </dd>
            <dt>{w.epss}</dt>
            <dd>
              {c.epss_score === null ? w.epssNone : percent(c.epss_score, lang, 2)}{" "}
              {c.epss_score !== null && (
                <span className="sub">
                  {w.epssOf(
                    c.epss_percentile === null ? null : percent(c.epss_percentile, lang, 0),
                    c.epss_date && formatDay(c.epss_date, lang),
                  )}
                </span>
              )}
            </dd>
            <dt>{w.published}</dt>
            <dd>{c.date_published ? formatDate(c.date_published, lang) : "—"}</dd>
            <dt>{w.updated}</dt>
            <dd>{c.date_updated ? formatDate(c.date_updated, lang) : "—"}</dd>
            <dt>{w.cwe}</dt>
            <dd>{c.cwe_ids?.join(", ") || "—"}</dd>
            <dt>{w.aliases}</dt>
            <dd>{[...c.aliases, ...c.fusion_de].join(", ") || "—"}</dd>
            <dt>{w.sources}</dt>
            <dd>{c.sources.join(", ")}</dd>
          </dl>

          <h2>{w.kevTitle}</h2>
          {c.kev ? (
            <dl className="facts">
              <dt>{w.kevAdded}</dt>
              <dd>{c.kev.date_added ? formatDay(c.kev.date_added, lang) : "—"}</dd>
              <dt>{w.kevDue}</dt>
              <dd>{c.kev.due_date ? formatDay(c.kev.due_date, lang) : "—"}</dd>
              <dt>{w.kevRansomware}</dt>
              <dd>{c.kev.ransomware ? (w.kevRansomwareValues[c.kev.ransomware] ?? c.kev.ransomware) : "—"}</dd>
              <dt>{w.kevAction}</dt>
              <dd>{c.kev.required_action ?? "—"}</dd>
              <dt>{w.kevSource}</dt>
              <dd>{c.kev.source}</dd>
            </dl>
          ) : (
            <p>{w.kevNo}</p>
          )}

          <h2>{w.affected}</h2>
          {c.affected.length === 0 && <p>{w.noAffected}</p>}
          {bySource(c.affected).map(([origin, rows]) => (
            <div className="table-wrap affected" key={origin}>
              <table>
                <caption>{w.affectedCaption(originName(origin, lang))}</caption>
                <thead>
                  <tr>
                    <th scope="col">{w.colVendor}</th>
                    <th scope="col">{w.colProduct}</th>
                    <th scope="col">{w.colVersions}</th>
                    <th scope="col">{w.colStatus}</th>
                    <th scope="col">{w.colCpe}</th>
                  </tr>
                </thead>
                <tbody>
                  {rows.map((r, i) => (
                    // biome-ignore lint/suspicious/noArrayIndexKey: the rows of one source have no id and keep their order.
                    <tr key={i}>
                      <td>{r.vendor ?? "—"}</td>
                      <td>{r.product ?? "—"}</td>
                      <td>{rangeOf(r) ?? w.allVersions}</td>
                      <td>{w.statuses[r.version_status ?? ""] ?? r.version_status ?? "—"}</td>
                      <td className="error-cell">{r.cpe ? <code>{r.cpe}</code> : "—"}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          ))}

          <h2>{w.mesures}</h2>
          {c.mesures_provisoires.length === 0 ? (
            <p>{w.noMesures}</p>
          ) : (
            <ul className="plain-list">
              {c.mesures_provisoires.map((m, i) => (
                // A source publishes several measures under one reference (a workaround and a fix).
                // biome-ignore lint/suspicious/noArrayIndexKey: the list is the record's, in its order.
                <li key={i}>
                  <strong>{w.mesureCategories[m.categorie] ?? m.categorie}</strong> —{" "}
                  {m.url ? <a href={m.url}>{m.reference}</a> : m.reference} ({m.source}
                  {m.date ? `, ${formatDay(m.date, lang)}` : ""}){m.texte && <p>{m.texte}</p>}
                  <span className="sub">{w.by(m.attribution)}</span>
                </li>
              ))}
            </ul>
          )}

          <h2>{w.pocs}</h2>
          <p>{w.pocCount(c.poc_count, c.poc_first_date && formatDay(c.poc_first_date, lang))}</p>
          {c.poc_count > 0 && <PocList cveId={c.cve_id} count={c.poc_count} />}
          {c.maturite_exploit && (
            <p>
              {w.maturity} : {w.maturities[c.maturite_exploit] ?? c.maturite_exploit}
            </p>
          )}

          <h2>{w.advisories}</h2>
          {advisories.data?.items.length ? (
            <ul className="plain-list">
              {advisories.data.items.map((v) => (
                <li key={v.id}>
                  <a href={v.url}>{v.id}</a> ({v.source}){v.summary ? ` — ${v.summary}` : ""}
                </li>
              ))}
            </ul>
          ) : (
            advisories.data && <p>{w.noAdvisories}</p>
          )}

          <CveAdvisories cveId={c.cve_id} />

          <h2>{w.articles}</h2>
          {articles.data?.items.length ? (
            <ul className="plain-list">
              {articles.data.items.map((a) => (
                <li key={a.id}>
                  <a href={a.url}>{a.title}</a>
                  <span className="sub">
                    {[a.source, a.published_at ? formatDate(a.published_at, lang) : null].filter(Boolean).join(" · ")}
                  </span>
                </li>
              ))}
            </ul>
          ) : (
            articles.data && <p>{w.noArticles}</p>
          )}

          {c.references.length > 0 && (
            <>
              <h2>{w.references}</h2>
              <ul className="plain-list refs">
                {c.references.map((r) => (
                  <li key={r}>
                    <a href={r}>{r}</a>
                  </li>
                ))}
              </ul>
            </>
          )}
        </>
      )}
    </section>
  );
}

/** The CVE's proofs of concept (GET …/pocs), asked for when opened: their links, sources and stars where known. */
function PocList({ cveId, count }: { cveId: string; count: number }) {
  const w = useWords(words);
  const [open, setOpen] = useState(false);
  const pocs = useQuery({
    queryKey: ["cve-pocs", cveId],
    enabled: open,
    queryFn: () => data(api.GET("/api/v1/cves/{cve_id}/pocs", { params: { path: { cve_id: cveId } } })),
  });
  return (
    <details className="poc-list" onToggle={(e) => setOpen((e.currentTarget as HTMLDetailsElement).open)}>
      <summary>{w.pocList(count)}</summary>
      {pocs.data && (
        <ul className="plain-list">
          {pocs.data.items.map((p) => (
            <li key={p.url}>
              <a href={p.url} rel="noopener noreferrer">
                {p.url}
              </a>{" "}
              <span className="sub">
                {w.pocSources(p.sources.join(", "))}
                {p.stars !== null && ` · ${w.pocStars(p.stars)}`}
              </span>
            </li>
          ))}
        </ul>
      )}
    </details>
  );
}
