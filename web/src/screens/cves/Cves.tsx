import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { Link, useNavigate } from "@tanstack/react-router";
import { type FormEvent, useId } from "react";
import { api, data } from "../../api/client";
import { formatDate } from "../../format";
import { useI18n, useWords } from "../../i18n/i18n";
import { cvesRoute } from "../../routes";
import { CVE_PAGE_SIZE, CVE_SORTS, type CveSearch, SEVERITIES, validateCveSearch } from "./search";
import { percent, score } from "./numbers";
import { words } from "./words";

/** `/cves`: the corpus searched and filtered from the URL, a page at a time. */
export function Cves() {
  const w = useWords(words);
  const { lang } = useI18n();
  const search = cvesRoute.useSearch();
  const navigate = useNavigate();
  const go = (next: CveSearch) => void navigate({ to: "/cves", search: validateCveSearch({ ...next }) });
  const page = search.page ?? 1;
  const query = { ...search, page, page_size: CVE_PAGE_SIZE };
  const list = useQuery({
    queryKey: ["cves", query],
    queryFn: () => data(api.GET("/api/v1/cves", { params: { query } })),
    placeholderData: keepPreviousData,
  });
  const pages = Math.max(1, Math.ceil((list.data?.total ?? 0) / CVE_PAGE_SIZE));
  return (
    <section aria-labelledby="cves-title" className="screen">
      <h1 id="cves-title">{w.title}</h1>
      <p className="muted">{w.intro}</p>
      <CveFilters key={JSON.stringify(search)} search={search} onApply={go} />
      {list.isPending && <p role="status">{w.loading}</p>}
      {list.isError && (
        <div role="alert" className="error">
          {w.loadError}
        </div>
      )}
      {list.data && (
        <p role="status" className="inbox-counts">
          {list.data.total === 0 ? w.empty : w.found(list.data.total)}
        </p>
      )}
      {list.data && list.data.items.length > 0 && (
        <div className="table-wrap">
          <table>
            <caption>{w.caption}</caption>
            <thead>
              <tr>
                <th scope="col">{w.colCve}</th>
                <th scope="col">{w.colProduct}</th>
                <th scope="col">{w.colScores}</th>
                <th scope="col">{w.colPublished}</th>
              </tr>
            </thead>
            <tbody>
              {list.data.items.map((c) => (
                <tr key={c.cve_id}>
                  <th scope="row">
                    <Link to="/cves/$cveId" params={{ cveId: c.cve_id }}>
                      {c.cve_id}
                    </Link>{" "}
                    <span className={`badge sev-${c.severity}`}>{w.severities[c.severity] ?? c.severity}</span>
                  </th>
                  <td>{[c.vendor, c.product].filter(Boolean).join(" · ") || "—"}</td>
                  <td>
                    <span className="scores">
                      <span>CVSS {c.cvss_score === null ? "—" : score(c.cvss_score, lang)}</span>
                      <span>EPSS {c.epss_score === null ? "—" : percent(c.epss_score, lang)}</span>
                      {c.is_kev && <span className="badge badge-bad">KEV</span>}
                      {c.has_poc && <span className="badge badge-warn">PoC</span>}
                    </span>
                  </td>
                  <td>{c.date_published ? formatDate(c.date_published, lang) : "—"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {pages > 1 && (
        <nav aria-label={w.pages} className="pager">
          <button type="button" className="button-secondary" disabled={page <= 1} onClick={() => go({ ...search, page: page - 1 })}>
            {w.previous}
          </button>
          <span>{w.pageOf(page, pages)}</span>
          <button type="button" className="button-secondary" disabled={page >= pages} onClick={() => go({ ...search, page: page + 1 })}>
            {w.next}
          </button>
        </nav>
      )}
    </section>
  );
}

function CveFilters({ search, onApply }: { search: CveSearch; onApply(s: CveSearch): void }) {
  const w = useWords(words);
  const id = useId();
  const tri = (v: boolean | undefined) => (v === undefined ? "" : String(v));
  function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const f = Object.fromEntries(new FormData(e.currentTarget));
    onApply({ ...f, severity: new FormData(e.currentTarget).getAll("severity") } as CveSearch);
  }
  const field = (name: keyof CveSearch, label: string, props: Record<string, unknown> = {}) => (
    <div className="field">
      <label htmlFor={`${id}-${name}`}>{label}</label>
      <input id={`${id}-${name}`} name={name} defaultValue={search[name] as string | number | undefined} {...props} />
    </div>
  );
  const yesNo = (
    <>
      <option value="">{w.any}</option>
      <option value="true">{w.yes}</option>
      <option value="false">{w.no}</option>
    </>
  );
  return (
    <form className="inbox-filters" aria-label={w.filters} onSubmit={submit}>
      {field("q", w.search, { type: "search", placeholder: w.searchHint, maxLength: 200 })}
      {field("vendor", w.vendor, { maxLength: 200 })}
      {field("product", w.product, { maxLength: 200 })}
      <fieldset>
        <legend>{w.severity}</legend>
        {SEVERITIES.map((s) => (
          <label key={s} className="check">
            <input type="checkbox" name="severity" value={s} defaultChecked={search.severity?.includes(s)} /> {w.severities[s]}
          </label>
        ))}
      </fieldset>
      <div className="field">
        <label htmlFor={`${id}-kev`}>{w.kev}</label>
        <select id={`${id}-kev`} name="is_kev" defaultValue={tri(search.is_kev)}>
          {yesNo}
        </select>
      </div>
      <div className="field">
        <label htmlFor={`${id}-poc`}>{w.poc}</label>
        <select id={`${id}-poc`} name="has_poc" defaultValue={tri(search.has_poc)}>
          {yesNo}
        </select>
      </div>
      {field("min_cvss", w.minCvss, { type: "number", min: 0, max: 10, step: 0.1 })}
      {field("min_epss", w.minEpss, { type: "number", min: 0, max: 1, step: 0.01 })}
      {field("published_from", w.from, { type: "date" })}
      {field("published_to", w.to, { type: "date" })}
      <div className="field">
        <label htmlFor={`${id}-sort`}>{w.sort}</label>
        <select id={`${id}-sort`} name="sort" defaultValue={search.sort ?? "-date_published"}>
          {CVE_SORTS.map((s) => (
            <option key={s} value={s}>
              {w.sorts[s]}
            </option>
          ))}
        </select>
      </div>
      <div className="filter-actions">
        <button type="submit" className="button-primary">
          {w.apply}
        </button>
        <button type="button" className="button-secondary" onClick={() => onApply({})}>
          {w.reset}
        </button>
      </div>
    </form>
  );
}
