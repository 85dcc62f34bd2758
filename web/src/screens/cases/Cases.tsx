import { keepPreviousData, useMutation, useQueries, useQuery, useQueryClient } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { useId, useState } from "react";
import { ApiError, api, data } from "../../api/client";
import { download } from "../../api/files";
import type { operations } from "../../api/schema";
import { formatDate } from "../../format";
import { useI18n, useWords } from "../../i18n/i18n";
import { projectRoute } from "../../routes";
import {
  type Case,
  type CaseStatus,
  Countdown,
  canTriage,
  Failed,
  ProjectTagManager,
  SeverityBadge,
  send,
  StatusBadge,
  useProjectTags,
} from "./common";
import { JustificationSelect } from "../vex/JustificationSelect";
import type { Justification } from "../vex/justifications";
import { effectiveExpiry } from "./paris";
import { SEVERITIES, STATUS_ORDER, words } from "./words";
import { Pager } from "../../ui/Pager";

type ListQuery = NonNullable<operations["listCases"]["parameters"]["query"]>;
type Sort = NonNullable<ListQuery["sort"]>;
type Severity = (typeof SEVERITIES)[number];

/** The filters the list route offers that the screen shows (one severity, one status). */
export interface CaseFilters {
  q?: string;
  status?: CaseStatus;
  severity?: Severity;
  tag?: string;
  has_exception?: boolean;
}

const PAGE_SIZE = 50;
/** Cards per board column: the column says how many more the table shows. */
export const COLUMN_SIZE = 20;
const SORTS: Sort[] = ["-updated_at", "updated_at", "-created_at", "created_at", "cve_id", "-cve_id", "expires_on", "severity"];

/** The list route's query for these filters (status: the board's column, else the filter's). */
export function listQuery(f: CaseFilters, status?: CaseStatus): ListQuery {
  const s = status ?? f.status;
  return {
    ...(s && { status: [s] }),
    ...(f.severity && { severity: [f.severity] }),
    ...(f.tag && { tag: f.tag }),
    ...(f.q && { q: f.q }),
    ...(f.has_exception !== undefined && { has_exception: f.has_exception }),
  };
}

/** GET …/cases/export?format=csv with the same filters and sort: a plain link, the session cookie goes with it. */
export function exportHref(orgId: string, projectId: string, f: CaseFilters, sort: Sort): string {
  const p = new URLSearchParams({ format: "csv" });
  for (const [k, v] of Object.entries(listQuery(f))) for (const one of Array.isArray(v) ? v : [v]) p.append(k, String(one));
  p.set("sort", sort);
  return `/api/v1/organizations/${orgId}/projects/${projectId}/cases/export?${p}`;
}

/** /p/$projectId/cases: the board by status or the table, filters, bulk changes, the CSV and VEX exports. */
export function Cases() {
  const { org, project } = projectRoute.useRouteContext();
  if (!org || !project) return null;
  return <CasesOf orgId={org.id} projectId={project.id} writable={canTriage(org.role)} />;
}

function CasesOf({ orgId, projectId, writable }: { orgId: string; projectId: string; writable: boolean }) {
  const w = useWords(words);
  const [view, setView] = useState<"board" | "table">("board");
  const [filters, setFilters] = useState<CaseFilters>({});
  const [sort, setSort] = useState<Sort>("-updated_at");
  const [page, setPage] = useState(1);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const change = (f: CaseFilters) => {
    setFilters(f);
    setPage(1);
  };
  const toggle = (cve: string, on: boolean) =>
    setSelected((s) => {
      const next = new Set(s);
      if (on) next.add(cve);
      else next.delete(cve);
      return next;
    });
  const ids = { orgId, projectId };
  return (
    <section aria-labelledby="cases-title" className={view === "board" ? "screen screen-wide" : "screen"}>
      <div className="screen-head">
        <h1 id="cases-title">{w.casesTitle}</h1>
        <div className="cases-actions">
          <fieldset className="segmented">
            <legend className="visually-hidden">{w.view}</legend>
            {(["board", "table"] as const).map((v) => (
              <button
                key={v}
                type="button"
                aria-pressed={view === v}
                className={view === v ? "button-primary" : "button-secondary"}
                onClick={() => setView(v)}
              >
                {v === "board" ? w.board : w.table}
              </button>
            ))}
          </fieldset>
          <a className="button-secondary button-link" href={exportHref(orgId, projectId, filters, sort)} download>
            {w.exportCsv}
          </a>
          <Link to="/p/$projectId/cases/vex" params={{ projectId }} className="button-secondary button-link">
            {w.vexProposals}
          </Link>
        </div>
      </div>
      <p className="muted">{w.casesIntro}</p>
      <VexExport {...ids} />
      {!writable && <p className="notice">{w.readOnly}</p>}
      <FiltersBar {...ids} filters={filters} onChange={change} sort={sort} onSort={setSort} showStatus={view === "table"} />
      {writable && <BulkBar {...ids} selected={selected} onDone={() => setSelected(new Set())} />}
      {writable && <ProjectTagManager {...ids} />}
      {view === "board" ? (
        <Board {...ids} filters={filters} sort={sort} selected={writable ? selected : undefined} onToggle={toggle} />
      ) : (
        <CasesTable
          {...ids}
          filters={filters}
          sort={sort}
          page={page}
          onPage={setPage}
          selected={writable ? selected : undefined}
          onToggle={toggle}
        />
      )}
    </section>
  );
}

function FiltersBar(props: {
  orgId: string;
  projectId: string;
  filters: CaseFilters;
  onChange(f: CaseFilters): void;
  sort: Sort;
  onSort(s: Sort): void;
  showStatus: boolean;
}) {
  const w = useWords(words);
  const id = useId();
  const tags = useProjectTags(props.orgId, props.projectId);
  const f = props.filters;
  const set = (patch: Partial<CaseFilters>) => props.onChange({ ...f, ...patch });
  return (
    <fieldset className="filters">
      <legend className="visually-hidden">{w.filters}</legend>
      <div className="field">
        <label htmlFor={`${id}-q`}>{w.search}</label>
        <input
          id={`${id}-q`}
          type="search"
          value={f.q ?? ""}
          onChange={(e) => set({ q: e.target.value.trim() ? e.target.value : undefined })}
        />
      </div>
      {props.showStatus && (
        <div className="field">
          <label htmlFor={`${id}-status`}>{w.status}</label>
          <select
            id={`${id}-status`}
            value={f.status ?? ""}
            onChange={(e) => set({ status: (e.target.value || undefined) as CaseStatus | undefined })}
          >
            <option value="">{w.any}</option>
            {STATUS_ORDER.map((s) => (
              <option key={s} value={s}>
                {w.statuses[s]}
              </option>
            ))}
          </select>
        </div>
      )}
      <div className="field">
        <label htmlFor={`${id}-sev`}>{w.severity}</label>
        <select
          id={`${id}-sev`}
          value={f.severity ?? ""}
          onChange={(e) => set({ severity: (e.target.value || undefined) as Severity | undefined })}
        >
          <option value="">{w.any}</option>
          {SEVERITIES.map((s) => (
            <option key={s} value={s}>
              {w.severities[s]}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor={`${id}-tag`}>{w.tag}</label>
        <select id={`${id}-tag`} value={f.tag ?? ""} onChange={(e) => set({ tag: e.target.value || undefined })}>
          <option value="">{w.any}</option>
          {tags.data?.map((t) => (
            <option key={t.id} value={t.id}>
              {t.name}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor={`${id}-exc`}>{w.exceptionFilter}</label>
        <select
          id={`${id}-exc`}
          value={f.has_exception === undefined ? "" : String(f.has_exception)}
          onChange={(e) => set({ has_exception: e.target.value === "" ? undefined : e.target.value === "true" })}
        >
          <option value="">{w.any}</option>
          <option value="true">{w.withException}</option>
          <option value="false">{w.withoutException}</option>
        </select>
      </div>
      <div className="field">
        <label htmlFor={`${id}-sort`}>{w.sort}</label>
        <select id={`${id}-sort`} value={props.sort} onChange={(e) => props.onSort(e.target.value as Sort)}>
          {SORTS.map((s) => (
            <option key={s} value={s}>
              {w.sorts[s]}
            </option>
          ))}
        </select>
      </div>
    </fieldset>
  );
}

interface ListProps {
  orgId: string;
  projectId: string;
  filters: CaseFilters;
  sort: Sort;
  /** The selection, when the user may change cases. */
  selected?: Set<string>;
  onToggle(cve: string, on: boolean): void;
}

function casesList(orgId: string, projectId: string, query: ListQuery) {
  return data(
    api.GET("/api/v1/organizations/{org_id}/projects/{project_id}/cases", {
      params: { path: { org_id: orgId, project_id: projectId }, query },
    }),
  );
}

/** One column per status, each its own page of the list route (the column's total from the server). */
export function Board({ orgId, projectId, filters, sort, selected, onToggle }: ListProps) {
  const w = useWords(words);
  const columns = useQueries({
    queries: STATUS_ORDER.map((status) => ({
      queryKey: ["cases", projectId, "board", status, filters, sort],
      queryFn: () => casesList(orgId, projectId, { ...listQuery(filters, status), sort, page_size: COLUMN_SIZE }),
    })),
  });
  return (
    <div className="board">
      {STATUS_ORDER.map((status, i) => {
        const col = columns[i]!;
        const headingId = `col-${status}`;
        return (
          <section key={status} className="board-column" aria-labelledby={headingId}>
            <h2 id={headingId}>
              <StatusBadge status={status} />{" "}
              {col.data && <span className="count">{w.columnCount(col.data.items.length, col.data.total)}</span>}
            </h2>
            {col.isPending && <p className="muted">{w.loading}</p>}
            {col.isError && <Failed onRetry={() => void col.refetch()} />}
            {col.data && col.data.items.length === 0 && <p className="muted">{w.emptyColumn}</p>}
            {col.data && (
              <ul className="cards">
                {col.data.items.map((c) => (
                  <li key={c.cve_id}>
                    <CaseCard projectId={projectId} c={c} selected={selected} onToggle={onToggle} />
                  </li>
                ))}
              </ul>
            )}
            {col.data && col.data.total > col.data.items.length && (
              <p className="muted small">{w.moreInTable(col.data.total - col.data.items.length)}</p>
            )}
          </section>
        );
      })}
    </div>
  );
}

function CaseCard({
  projectId,
  c,
  selected,
  onToggle,
}: {
  projectId: string;
  c: Case;
  selected?: Set<string>;
  onToggle(cve: string, on: boolean): void;
}) {
  const w = useWords(words);
  const expiry = effectiveExpiry(c);
  return (
    <article className="case-card" aria-label={c.cve_id}>
      <div className="case-card-head">
        {selected && (
          <input
            type="checkbox"
            aria-label={w.selectCase(c.cve_id)}
            checked={selected.has(c.cve_id)}
            onChange={(e) => onToggle(c.cve_id, e.target.checked)}
          />
        )}
        <Link to="/p/$projectId/cases/$cveId" params={{ projectId, cveId: c.cve_id }} className="cve">
          {c.cve_id}
        </Link>
      </div>
      <SeverityBadge severity={c.severity} />
      {expiry && (
        <div>
          <Countdown expiresOn={expiry} />
        </div>
      )}
      {c.tags.length > 0 && <TagList tags={c.tags} />}
    </article>
  );
}

function TagList({ tags }: { tags: Case["tags"] }) {
  return (
    <ul className="tag-list">
      {tags.map((t) => (
        <li key={t.id} className="tag" style={{ borderColor: t.color }}>
          {t.name}
        </li>
      ))}
    </ul>
  );
}

function CasesTable({
  orgId,
  projectId,
  filters,
  sort,
  page,
  onPage,
  selected,
  onToggle,
}: ListProps & { page: number; onPage(p: number): void }) {
  const w = useWords(words);
  const { lang } = useI18n();
  const list = useQuery({
    queryKey: ["cases", projectId, "list", filters, sort, page],
    queryFn: () => casesList(orgId, projectId, { ...listQuery(filters), sort, page, page_size: PAGE_SIZE }),
    placeholderData: keepPreviousData,
  });
  if (list.isPending) return <p role="status">{w.loading}</p>;
  if (list.isError) return <Failed onRetry={() => void list.refetch()} />;
  const { items, total } = list.data;
  const pages = Math.max(1, Math.ceil(total / PAGE_SIZE));
  const allOnPage = items.length > 0 && items.every((c) => selected?.has(c.cve_id));
  return (
    <>
      <div className="table-wrap">
        <table>
          <caption>{w.casesCaption}</caption>
          <thead>
            <tr>
              {selected && (
                <th scope="col">
                  <input
                    type="checkbox"
                    aria-label={w.selectPage}
                    checked={allOnPage}
                    onChange={(e) => items.forEach((c) => onToggle(c.cve_id, e.target.checked))}
                  />
                </th>
              )}
              <th scope="col">{w.colCve}</th>
              <th scope="col">{w.colStatus}</th>
              <th scope="col">{w.colSeverity}</th>
              <th scope="col">{w.colExpiry}</th>
              <th scope="col">{w.colTags}</th>
              <th scope="col">{w.colUpdated}</th>
            </tr>
          </thead>
          <tbody>
            {items.length === 0 && (
              <tr>
                <td colSpan={selected ? 7 : 6} className="muted">
                  {w.noCases}
                </td>
              </tr>
            )}
            {items.map((c) => {
              const expiry = effectiveExpiry(c);
              return (
                <tr key={c.cve_id}>
                  {selected && (
                    <td>
                      <input
                        type="checkbox"
                        aria-label={w.selectCase(c.cve_id)}
                        checked={selected.has(c.cve_id)}
                        onChange={(e) => onToggle(c.cve_id, e.target.checked)}
                      />
                    </td>
                  )}
                  <th scope="row">
                    <Link to="/p/$projectId/cases/$cveId" params={{ projectId, cveId: c.cve_id }}>
                      {c.cve_id}
                    </Link>
                  </th>
                  <td>
                    <StatusBadge status={c.status} />
                  </td>
                  <td>
                    <SeverityBadge severity={c.severity} />
                  </td>
                  <td>{expiry ? <Countdown expiresOn={expiry} /> : "—"}</td>
                  <td>{c.tags.length ? <TagList tags={c.tags} /> : "—"}</td>
                  <td>{formatDate(c.updated_at, lang)}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      <Pager page={page} pages={pages} onPage={onPage} label={w.page(page, pages, total)} status={w.page(page, pages, total)} />
    </>
  );
}

/** POST …/cases/bulk on the selected cases: a status (under the transition rules, all or nothing) or a tag. */
function BulkBar({ orgId, projectId, selected, onDone }: { orgId: string; projectId: string; selected: Set<string>; onDone(): void }) {
  const w = useWords(words);
  const id = useId();
  const queryClient = useQueryClient();
  const tags = useProjectTags(orgId, projectId);
  const [status, setStatus] = useState("");
  const [justification, setJustification] = useState<Justification | "">("");
  const [tag, setTag] = useState("");
  const [done, setDone] = useState<string | null>(null);
  const bulk = useMutation({
    mutationFn: (set: { status?: CaseStatus; justification_vex?: Justification; add_tags?: string[]; remove_tags?: string[] }) =>
      send(
        api.POST("/api/v1/organizations/{org_id}/projects/{project_id}/cases/bulk", {
          params: { path: { org_id: orgId, project_id: projectId } },
          body: { cve_ids: [...selected], set, create_missing: false },
        }),
      ),
    onSuccess: async (r) => {
      setDone(w.bulkDone(r.updated));
      onDone();
      await queryClient.invalidateQueries({ queryKey: ["cases", projectId] });
    },
    onMutate: () => setDone(null),
  });
  if (selected.size === 0) return done ? <p role="status">{done}</p> : null;
  return (
    <section className="bulkbar" aria-label={w.selected(selected.size)}>
      <strong>{w.selected(selected.size)}</strong>
      <div className="field-inline">
        <label htmlFor={`${id}-status`}>{w.bulkStatus}</label>
        <select id={`${id}-status`} value={status} onChange={(e) => setStatus(e.target.value)}>
          <option value="">{w.choose}</option>
          {STATUS_ORDER.filter((s) => s !== "attenue" && s !== "risque_accepte").map((s) => (
            <option key={s} value={s}>
              {w.statuses[s]}
            </option>
          ))}
        </select>
        {status === "non_concerne" && (
          <JustificationSelect
            id={`${id}-j`}
            label={w.justificationVex}
            none={w.noJustification}
            value={justification}
            onChange={setJustification}
            inline
          />
        )}
        <button
          type="button"
          className="button-primary"
          disabled={!status || bulk.isPending}
          onClick={() =>
            bulk.mutate({
              status: status as CaseStatus,
              ...(status === "non_concerne" && justification && { justification_vex: justification }),
            })
          }
        >
          {w.apply}
        </button>
      </div>
      <div className="field-inline">
        <label htmlFor={`${id}-tag`}>{w.bulkTag}</label>
        <select id={`${id}-tag`} value={tag} onChange={(e) => setTag(e.target.value)}>
          <option value="">{w.choose}</option>
          {tags.data?.map((t) => (
            <option key={t.id} value={t.id}>
              {t.name}
            </option>
          ))}
        </select>
        <button
          type="button"
          className="button-secondary"
          disabled={!tag || bulk.isPending}
          onClick={() => bulk.mutate({ add_tags: [tag] })}
        >
          {w.addTag}
        </button>
        <button
          type="button"
          className="button-secondary"
          disabled={!tag || bulk.isPending}
          onClick={() => bulk.mutate({ remove_tags: [tag] })}
        >
          {w.removeTag}
        </button>
      </div>
      <button type="button" className="button-secondary" onClick={onDone}>
        {w.clearSelection}
      </button>
      {bulk.isError && (
        <p role="alert" className="error">
          {bulk.error.message}
        </p>
      )}
    </section>
  );
}

type VexFormat = NonNullable<NonNullable<operations["exportVex"]["parameters"]["query"]>["format"]>;
const VEX_FORMATS: VexFormat[] = ["cyclonedx", "csaf", "openvex"];

/**
 * « Exporter en VEX »: the format chosen, GET …/vex?format= with the session, saved as the file the
 * server names (a 409 — no alert to state — shown in words, not downloaded).
 */
export function VexExport({ orgId, projectId }: { orgId: string; projectId: string }) {
  const w = useWords(words);
  const id = useId();
  const [format, setFormat] = useState<VexFormat>("cyclonedx");
  const save = useMutation({
    mutationFn: (f: VexFormat) =>
      download(
        api.GET("/api/v1/organizations/{org_id}/projects/{project_id}/vex", {
          params: { path: { org_id: orgId, project_id: projectId }, query: { format: f } },
          parseAs: "blob",
        }),
        `vex-${projectId}.${f === "cyclonedx" ? "cdx" : f}.json`,
      ),
  });
  return (
    <section className="vex-export" aria-labelledby={`${id}-h`}>
      <h2 id={`${id}-h`} className="visually-hidden">
        {w.vexExport}
      </h2>
      <div className="field-inline">
        <label htmlFor={`${id}-f`}>{w.vexFormat}</label>
        <select id={`${id}-f`} value={format} onChange={(e) => setFormat(e.target.value as VexFormat)}>
          {VEX_FORMATS.map((f) => (
            <option key={f} value={f}>
              {w.vexFormats[f]}
            </option>
          ))}
        </select>
        <button
          type="button"
          className="button-secondary"
          aria-describedby={`${id}-hint`}
          disabled={save.isPending}
          onClick={() => save.mutate(format)}
        >
          {w.vexExport}
        </button>
        <span id={`${id}-hint`} className="sub-inline">
          {w.vexExportHint}
        </span>
      </div>
      {save.isSuccess && (
        <p role="status" className="status-line">
          {w.vexExported(save.data)}
        </p>
      )}
      {save.isError && (
        <p role="alert" className="error">
          {save.error instanceof ApiError && !save.error.message.startsWith("HTTP ") ? save.error.message : w.vexExportError}
        </p>
      )}
    </section>
  );
}
