import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { Link, useNavigate } from "@tanstack/react-router";
import { api, data } from "../../api/client";
import { formatDate } from "../../format";
import { useI18n, useWords } from "../../i18n/i18n";
import { cvesRoute } from "../../routes";
import { CVE_PAGE_SIZE, CVE_SORTS, CVE_STATES, type CveSearch, SEVERITIES, validateCveSearch } from "./search";
import { percent, score } from "./numbers";
import { words } from "./words";
import { CheckFilter, chipsOf, FilterPanel, InputFilter, SelectFilter, YesNoFilter } from "../../ui/Filters";
import { Pager } from "../../ui/Pager";

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
  // Left out by default: how many reference-only CVEs the same search holds (one row fetched, its total cached by the server).
  const hiddenQuery = { ...query, state: "reference_only" as const, page: 1, page_size: 1 };
  const hidden = useQuery({
    queryKey: ["cves", hiddenQuery],
    enabled: !search.state,
    queryFn: () => data(api.GET("/api/v1/cves", { params: { query: hiddenQuery } })),
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
      {!search.state && !!hidden.data?.total && (
        <p className="muted" data-note="reference-only">
          {w.hiddenReferenceOnly(hidden.data.total.toLocaleString(lang === "fr" ? "fr-FR" : "en-GB"))}{" "}
          <Link to="/cves" search={validateCveSearch({ ...search, state: "reference_only", page: undefined })}>
            {w.showReferenceOnly}
          </Link>
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
                    {c.state === "REFERENCE_ONLY" && <span className="badge badge-idle">{w.referenceOnly}</span>}
                    {c.state === "REJECTED" && <span className="badge badge-idle">{w.rejected}</span>}
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
        <Pager page={page} pages={pages} onPage={(p) => go({ ...search, page: p })} label={w.pages} status={w.pageOf(page, pages)} />
      )}
    </section>
  );
}

function CveFilters({ search, onApply }: { search: CveSearch; onApply(s: CveSearch): void }) {
  const w = useWords(words);
  const { lang } = useI18n();
  const is = (label: string) => (v: string) => `${label} : ${v === "true" ? w.yes : w.no}`;
  const chips = chipsOf(
    search,
    {
      q: (v) => `« ${v} »`,
      vendor: (v) => `${w.vendor} : ${v}`,
      product: (v) => `${w.product} : ${v}`,
      severity: (v) => `${w.severity} : ${w.severities[v] ?? v}`,
      is_kev: is(w.kev),
      has_poc: is(w.poc),
      min_cvss: (v) => `${w.minCvss} : ${score(Number(v), lang)}`,
      min_epss: (v) => `${w.minEpss} : ${percent(Number(v), lang)}`,
      published_from: (v) => `${w.from} ${v}`,
      published_to: (v) => `${w.to} ${v}`,
      state: (v) => `${w.state} : ${w.states[v as (typeof CVE_STATES)[number]] ?? v}`,
    },
    onApply,
  );
  return (
    <FilterPanel
      label={w.filters}
      chips={chips}
      onApply={(values) => onApply(values as CveSearch)}
      onReset={() => onApply({})}
      lead={<InputFilter label={w.search} name="q" type="search" defaultValue={search.q} placeholder={w.searchHint} maxLength={200} />}
    >
      <InputFilter label={w.vendor} name="vendor" defaultValue={search.vendor} maxLength={200} />
      <InputFilter label={w.product} name="product" defaultValue={search.product} maxLength={200} />
      <CheckFilter
        legend={w.severity}
        name="severity"
        values={search.severity}
        choices={SEVERITIES.map((s) => [s, w.severities[s] ?? s] as const)}
      />
      <YesNoFilter label={w.kev} name="is_kev" value={search.is_kev} any={w.any} />
      <YesNoFilter label={w.poc} name="has_poc" value={search.has_poc} any={w.any} />
      <InputFilter label={w.minCvss} name="min_cvss" type="number" min={0} max={10} step={0.1} defaultValue={search.min_cvss} />
      <InputFilter label={w.minEpss} name="min_epss" type="number" min={0} max={1} step={0.01} defaultValue={search.min_epss} />
      <SelectFilter
        label={w.state}
        name="state"
        value={search.state ?? "published"}
        choices={CVE_STATES.map((s) => [s, w.states[s] ?? s] as const)}
      />
      <InputFilter label={w.from} name="published_from" type="date" defaultValue={search.published_from} />
      <InputFilter label={w.to} name="published_to" type="date" defaultValue={search.published_to} />
      <SelectFilter
        label={w.sort}
        name="sort"
        value={search.sort ?? "-date_published"}
        choices={CVE_SORTS.map((s) => [s, w.sorts[s] ?? s] as const)}
      />
    </FilterPanel>
  );
}
