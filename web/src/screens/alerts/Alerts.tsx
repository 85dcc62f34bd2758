import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Link, useNavigate } from "@tanstack/react-router";
import { type KeyboardEvent, useEffect, useId, useRef, useState } from "react";
import { ApiError, api, data } from "../../api/client";
import type { components } from "../../api/schema";
import { formatDate } from "../../format";
import { useI18n, useWords } from "../../i18n/i18n";
import { alertsRoute, projectRoute } from "../../routes";
import { percent, score } from "../cves/numbers";
import { TagManager } from "../tags/TagManager";
import { type Correspondance, explain } from "./explain";
import {
  type AlertSearch,
  alertQuery,
  DEFAULT_SORT,
  validateAlertSearch,
  PAGE_SIZE,
  PALIERS,
  SEVERITIES,
  SORTS,
  VERIFIED_RULES,
} from "./search";
import { words } from "./words";
import { CheckFilter, chipsOf, FilterPanel, InputFilter, SelectFilter, YesNoFilter } from "../../ui/Filters";
import { Pager } from "../../ui/Pager";
import { type AvisEditeur, VendorWord } from "../csaf/VendorWord";
import { csafWords } from "../csaf/words";

type Alert = components["schemas"]["AlertOut"];
type W = typeof words.fr;

const PROJECT = "/api/v1/organizations/{org_id}/projects/{project_id}" as const;
const WRITERS = new Set(["member", "admin", "owner"]);

/** `/p/$projectId/alerts`: the project's alerts, filtered from the URL, triaged from the keyboard. */
export function Alerts() {
  const { org, project } = projectRoute.useRouteContext();
  if (!org || !project) return null;
  return <Inbox orgId={org.id} projectId={project.id} canWrite={WRITERS.has(org.role)} />;
}

function Inbox({ orgId, projectId, canWrite }: { orgId: string; projectId: string; canWrite: boolean }) {
  const w = useWords(words);
  const search = alertsRoute.useSearch();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const path = { org_id: orgId, project_id: projectId };

  const query = alertQuery(search);
  const list = useQuery({
    queryKey: ["alerts", projectId, query],
    queryFn: () => data(api.GET(`${PROJECT}/alerts`, { params: { path, query } })),
    placeholderData: keepPreviousData,
  });
  // The other tab's unread count (one row fetched).
  const otherQuery = { ...alertQuery(search, !search.unverified), page: 1, page_size: 1 };
  const other = useQuery({
    queryKey: ["alerts", projectId, otherQuery],
    queryFn: () => data(api.GET(`${PROJECT}/alerts`, { params: { path, query: otherQuery } })),
  });
  const tags = useQuery({
    queryKey: ["tags", projectId],
    queryFn: () => data(api.GET(`${PROJECT}/tags`, { params: { path } })),
  });

  const items = list.data?.items ?? [];
  const [cursor, setCursor] = useState(0);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [openId, setOpenId] = useState<string | null>(null);
  const [help, setHelp] = useState(false);
  const [message, setMessage] = useState<{ text: string; error?: boolean; caseOf?: string } | null>(null);
  const rows = useRef<(HTMLTableRowElement | null)[]>([]);
  const grid = useRef<HTMLTableElement>(null);
  const gridHadFocus = useRef(false);

  const go = (next: AlertSearch) =>
    void navigate({ to: "/p/$projectId/alerts", params: { projectId }, search: validateAlertSearch({ ...next }) });

  // A new page or filter: back to its first row, nothing selected.
  const listKey = JSON.stringify(query);
  // biome-ignore lint/correctness/useExhaustiveDependencies: reset when the view changes, not on each render.
  useEffect(() => {
    setCursor(0);
    setSelected(new Set());
    setOpenId(null);
  }, [listKey]);
  // Rows gone (marked read under "unread"): the cursor stays in the list and keeps the focus.
  useEffect(() => {
    const i = Math.min(cursor, Math.max(0, items.length - 1));
    if (i !== cursor) setCursor(i);
    if (gridHadFocus.current && !grid.current?.contains(document.activeElement)) rows.current[i]?.focus();
  }, [items, cursor]);

  const failed = (err: unknown) => setMessage({ text: err instanceof ApiError ? err.message : String(err), error: true });
  const refresh = () => queryClient.invalidateQueries({ queryKey: ["alerts", projectId] });

  const markRead = useMutation({
    mutationFn: (which: string[] | "all") =>
      data(api.POST(`${PROJECT}/alerts/read`, { params: { path }, body: which === "all" ? { all: true } : { ids: which } })),
    onSuccess: (r) => {
      setMessage({ text: w.marked(r.updated) });
      setSelected(new Set());
      return refresh();
    },
    onError: failed,
  });
  const tag = useMutation({
    mutationFn: async ({ ids, tagId }: { ids: string[]; tagId: string }) => {
      for (const alert_id of ids)
        await data(api.POST(`${PROJECT}/alerts/{alert_id}/tags`, { params: { path: { ...path, alert_id } }, body: { tag_id: tagId } }));
      return ids.length;
    },
    onSuccess: (n, { tagId }) => {
      setMessage({ text: w.tagged(n, tags.data?.find((t) => t.id === tagId)?.name ?? "") });
      setSelected(new Set());
      return refresh();
    },
    onError: failed,
  });
  const openCase = useMutation({
    mutationFn: async (cve_id: string) => {
      const r = await api.PUT(`${PROJECT}/cases/{cve_id}`, { params: { path: { ...path, cve_id } }, body: {} });
      return { created: r.response.status === 201, c: await data(Promise.resolve(r)) };
    },
    onSuccess: ({ created, c }) => {
      const status = c.status.replace(/_/g, " ");
      setMessage({ text: created ? w.caseOpened(c.cve_id, status) : w.caseExists(c.cve_id, status), caseOf: c.cve_id });
      return queryClient.invalidateQueries({ queryKey: ["cases", projectId] });
    },
    onError: failed,
  });

  const focusRow = (i: number) => {
    const at = Math.max(0, Math.min(items.length - 1, i));
    setCursor(at);
    rows.current[at]?.focus();
  };
  const toggle = (id: string) =>
    setSelected((s) => {
      const next = new Set(s);
      if (!next.delete(id)) next.add(id);
      return next;
    });

  function onGridKey(e: KeyboardEvent<HTMLTableElement>) {
    if (e.ctrlKey || e.metaKey || e.altKey || (e.target as HTMLElement).tagName === "INPUT") return;
    const focused = items[cursor];
    const handled = () => e.preventDefault();
    switch (e.key) {
      case "j":
      case "ArrowDown":
        handled();
        return focusRow(cursor + 1);
      case "k":
      case "ArrowUp":
        handled();
        return focusRow(cursor - 1);
      case "Home":
        handled();
        return focusRow(0);
      case "End":
        handled();
        return focusRow(items.length - 1);
      case "x":
      case " ":
        handled();
        if (canWrite && focused) toggle(focused.id);
        return;
      case "e":
        handled();
        if (canWrite && focused) markRead.mutate(selected.size ? [...selected] : [focused.id]);
        return;
      case "c":
        handled();
        if (canWrite && focused) openCase.mutate(focused.cve_id);
        return;
      case "Enter":
      case "o":
        handled();
        if (focused) setOpenId(focused.id);
        return;
    }
  }

  function onScreenKey(e: KeyboardEvent<HTMLElement>) {
    const tagName = (e.target as HTMLElement).tagName;
    if (e.key === "?" && !["INPUT", "SELECT", "TEXTAREA"].includes(tagName)) {
      e.preventDefault();
      setHelp(true);
    }
  }

  const total = list.data?.total ?? 0;
  const pages = Math.max(1, Math.ceil(total / PAGE_SIZE));
  const page = search.page ?? 1;
  const open = items.find((a) => a.id === openId) ?? null;
  const backToGrid = () => rows.current[cursor]?.focus();

  return (
    <section aria-labelledby="alerts-title" className="screen inbox" onKeyDown={onScreenKey}>
      <div className="inbox-head">
        <h1 id="alerts-title">{w.title}</h1>
        {list.data && (
          <p className="inbox-counts" aria-live="polite">
            {w.total(total)} · <strong>{w.unread(list.data.unread_count)}</strong>
          </p>
        )}
        <button type="button" className="button-secondary" onClick={() => setHelp(true)} aria-keyshortcuts="?">
          {w.helpButton}
        </button>
      </div>
      <p className="muted">{w.intro}</p>

      {/* biome-ignore lint/a11y/useSemanticElements: two toggle buttons named as a group; a fieldset would draw a form box. */}
      <div role="group" aria-label={w.tabs} className="inbox-tabs">
        {[false, true].map((unverified) => {
          const count = unverified === !!search.unverified ? list.data?.unread_count : other.data?.unread_count;
          return (
            <button
              key={String(unverified)}
              type="button"
              aria-pressed={unverified === !!search.unverified}
              onClick={() => go({ ...search, unverified: unverified || undefined, rule: undefined, page: undefined })}
            >
              {unverified ? w.tabUnverified : w.tabVerified}
              {count !== undefined && <span className="tab-count"> ({w.unread(count)})</span>}
            </button>
          );
        })}
      </div>
      {search.unverified && <p className="notice">{w.unverifiedIntro}</p>}
      {search.resume && (
        <p className="notice">
          {w.digestOnly}{" "}
          <button type="button" className="button-secondary" onClick={() => go({ ...search, resume: undefined, page: undefined })}>
            {w.digestClear}
          </button>
        </p>
      )}

      <Filters key={JSON.stringify(search)} search={search} tags={tags.data ?? []} onApply={go} />

      {!canWrite && <p className="muted">{w.viewOnly}</p>}
      {canWrite && (
        <BulkBar
          selected={[...selected]}
          tags={tags.data ?? []}
          busy={markRead.isPending || tag.isPending}
          onRead={(which) => {
            if (which !== "all" || window.confirm(w.confirmAll)) markRead.mutate(which);
          }}
          onTag={(tagId) => tag.mutate({ ids: [...selected], tagId })}
        />
      )}
      {canWrite && <TagManager orgId={orgId} projectId={projectId} tags={tags.data ?? []} />}
      <div className="inbox-message" role="status">
        {message && !message.error && message.text}
        {message?.caseOf && (
          <>
            {" "}
            <Link to="/p/$projectId/cases/$cveId" params={{ projectId, cveId: message.caseOf }}>
              {w.seeCase}
            </Link>
          </>
        )}
      </div>
      {message?.error && (
        <div role="alert" className="error">
          {message.text}
        </div>
      )}

      {list.isPending && <p role="status">{w.loading}</p>}
      {list.isError && (
        <div role="alert" className="error">
          {w.loadError}{" "}
          <button type="button" className="button-secondary" onClick={() => void list.refetch()}>
            {w.retry}
          </button>
        </div>
      )}
      {list.data && items.length === 0 && <p>{w.empty}</p>}
      {items.length > 0 && (
        <div className="inbox-body">
          <div className="table-wrap">
            <table
              ref={grid}
              // biome-ignore lint/a11y/noNoninteractiveElementToInteractiveRole: the APG data grid is a table with role grid (roving focus on its rows).
              role="grid"
              aria-label={w.listLabel}
              aria-multiselectable={canWrite || undefined}
              aria-rowcount={total + 1}
              aria-busy={list.isFetching}
              className="inbox-grid"
              onKeyDown={onGridKey}
              onFocus={() => (gridHadFocus.current = true)}
              onBlur={(e) => (gridHadFocus.current = !!e.relatedTarget && !!grid.current?.contains(e.relatedTarget as Node))}
            >
              <thead>
                <tr aria-rowindex={1}>
                  {canWrite && (
                    <th scope="col" className="sr-only-text">
                      {w.colSelect}
                    </th>
                  )}
                  <th scope="col">{w.colCve}</th>
                  <th scope="col">{w.colWhy}</th>
                  <th scope="col">{w.colScores}</th>
                  <th scope="col">{w.colDate}</th>
                </tr>
              </thead>
              <tbody>
                {items.map((a, i) => (
                  <AlertRow
                    key={a.id}
                    alert={a}
                    w={w}
                    rowIndex={(page - 1) * PAGE_SIZE + i + 2}
                    focusable={i === cursor}
                    selected={canWrite ? selected.has(a.id) : undefined}
                    onToggle={() => toggle(a.id)}
                    onFocus={() => setCursor(i)}
                    onOpen={() => setOpenId(a.id)}
                    rowRef={(el) => {
                      rows.current[i] = el;
                    }}
                  />
                ))}
              </tbody>
            </table>
          </div>
          {open && (
            <AlertDetail
              alert={open}
              w={w}
              onClose={() => {
                setOpenId(null);
                backToGrid();
              }}
            />
          )}
        </div>
      )}
      {pages > 1 && (
        <Pager page={page} pages={pages} onPage={(p) => go({ ...search, page: p })} label={w.pages} status={w.pageOf(page, pages)} />
      )}
      {help && (
        <Help
          w={w}
          onClose={() => {
            setHelp(false);
            backToGrid();
          }}
        />
      )}
    </section>
  );
}

function AlertRow(props: {
  alert: Alert;
  w: W;
  rowIndex: number;
  focusable: boolean;
  selected: boolean | undefined;
  onToggle(): void;
  onFocus(): void;
  onOpen(): void;
  rowRef(el: HTMLTableRowElement | null): void;
}) {
  const { alert: a, w, selected } = props;
  const { lang } = useI18n();
  const why = explain(a.correspondance as Correspondance, lang);
  const palier = a.palier ?? "P4";
  const label = [
    a.cve_id,
    w.paliers[palier] ?? palier,
    w.severities[a.severity] ?? a.severity,
    a.is_read ? w.isRead : w.isUnread,
    why,
  ].join(", ");
  return (
    <tr
      ref={props.rowRef}
      tabIndex={props.focusable ? 0 : -1}
      aria-rowindex={props.rowIndex}
      aria-selected={selected}
      aria-label={label}
      className={`${a.is_read ? "is-read" : "is-unread"}${selected ? " is-selected" : ""}`}
      onFocus={props.onFocus}
      onDoubleClick={props.onOpen}
    >
      {selected !== undefined && (
        <td className="select-cell">
          <input type="checkbox" tabIndex={-1} checked={selected} onChange={props.onToggle} aria-label={w.select(a.cve_id)} />
        </td>
      )}
      <td>
        <span className="alert-cve">
          {!a.is_read && <span className="unread-dot" title={w.isUnread} />}
          <Link to="/cves/$cveId" params={{ cveId: a.cve_id }} tabIndex={-1}>
            {a.cve_id}
          </Link>
        </span>
        <span className="badges">
          <span className={`badge palier-${palier}`}>{palier}</span>
          <span className={`badge sev-${a.severity}`}>{w.severities[a.severity] ?? a.severity}</span>
        </span>
        {(a.vendor || a.product) && <span className="sub">{[a.vendor, a.product].filter(Boolean).join(" · ")}</span>}
      </td>
      <td className="why">
        {why}
        {a.tags.length > 0 && (
          <span className="tags">
            {a.tags.map((t) => (
              <span key={t.id} className="tag" style={{ borderLeftColor: t.color }}>
                {t.name}
              </span>
            ))}
          </span>
        )}
      </td>
      <td>
        <Scores alert={a} w={w} />
      </td>
      <td className="date">{formatDate(a.triggered_at, lang)}</td>
    </tr>
  );
}

export function Scores({ alert: a, w }: { alert: Pick<Alert, "cvss_score" | "epss_score" | "is_kev" | "has_poc">; w: W }) {
  const { lang } = useI18n();
  return (
    <span className="scores">
      <span>
        {w.cvss} {a.cvss_score === null ? "—" : score(a.cvss_score, lang)}
      </span>
      <span>
        {w.epss} {a.epss_score === null ? "—" : percent(a.epss_score, lang)}
      </span>
      {a.is_kev && (
        <span className="badge badge-bad" title={w.badgeKevLong}>
          {w.badgeKev}
        </span>
      )}
      {a.has_poc && (
        <span className="badge badge-warn" title={w.badgePocLong}>
          {w.badgePoc}
        </span>
      )}
    </span>
  );
}

function AlertDetail({ alert: a, w, onClose }: { alert: Alert; w: W; onClose(): void }) {
  const { lang } = useI18n();
  const cw = useWords(csafWords);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  return (
    <aside aria-labelledby="alert-detail-title" className="inbox-detail" onKeyDown={(e) => e.key === "Escape" && onClose()}>
      <h2 id="alert-detail-title" tabIndex={-1} ref={heading}>
        {w.detail} : {a.cve_id}
      </h2>
      <dl className="facts">
        <dt>{w.why}</dt>
        <dd>{explain(a.correspondance as Correspondance, lang)}</dd>
        {a.correspondance.rule === "vendor_advisory" && (a.correspondance as { avis_editeur?: AvisEditeur }).avis_editeur && (
          <>
            <dt>{cw.vendorWord}</dt>
            <dd>
              <VendorWord avis={(a.correspondance as { avis_editeur: AvisEditeur }).avis_editeur} matching={a.correspond_encore} />
            </dd>
          </>
        )}
        <dt>{w.palier}</dt>
        <dd>{w.paliers[a.palier ?? ""] ?? a.palier}</dd>
        <dt>{w.severity}</dt>
        <dd>{w.severities[a.severity] ?? a.severity}</dd>
        <dt>{w.colScores}</dt>
        <dd>
          <Scores alert={a} w={w} />
        </dd>
        <dt>{w.triggered}</dt>
        <dd>{formatDate(a.triggered_at, lang)}</dd>
        <dt>{w.tags}</dt>
        <dd>{a.tags.length ? a.tags.map((t) => t.name).join(", ") : w.none}</dd>
        <dt>{w.description}</dt>
        <dd>{a.description ?? w.none}</dd>
      </dl>
      <p>
        <Link to="/cves/$cveId" params={{ cveId: a.cve_id }}>
          {w.seeCve(a.cve_id)}
        </Link>
      </p>
      <button type="button" className="button-secondary" onClick={onClose}>
        {w.close}
      </button>
    </aside>
  );
}

function Help({ w, onClose }: { w: W; onClose(): void }) {
  const close = useRef<HTMLButtonElement>(null);
  useEffect(() => close.current?.focus(), []);
  return (
    <>
      <div className="inbox-help-backdrop" />
      <div
        role="dialog"
        aria-modal="true"
        aria-labelledby="inbox-help-title"
        className="inbox-help"
        onKeyDown={(e) => {
          if (e.key !== "Escape" && e.key !== "?") return;
          e.preventDefault();
          onClose();
        }}
      >
        <h2 id="inbox-help-title">{w.help}</h2>
        <table>
          <tbody>
            {w.keys.map(([k, what]) => (
              <tr key={k}>
                <th scope="row">
                  <kbd>{k}</kbd>
                </th>
                <td>{what}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <button type="button" className="button-primary" ref={close} onClick={onClose}>
          {w.close}
        </button>
      </div>
    </>
  );
}

function BulkBar(props: {
  selected: string[];
  tags: components["schemas"]["TagBrief"][];
  busy: boolean;
  onRead(which: string[] | "all"): void;
  onTag(tagId: string): void;
}) {
  const w = useWords(words);
  const id = useId();
  const [tagId, setTagId] = useState("");
  const n = props.selected.length;
  return (
    <div className="inbox-bulk" role="toolbar" aria-label={w.selected(n)}>
      <span>{w.selected(n)}</span>
      <button type="button" className="button-primary" disabled={!n || props.busy} onClick={() => props.onRead(props.selected)}>
        {w.markRead}
      </button>
      <div className="field-inline">
        <label htmlFor={id}>{w.tagWith}</label>
        <select id={id} value={tagId} onChange={(e) => setTagId(e.target.value)} disabled={!props.tags.length}>
          <option value="">{props.tags.length ? "—" : w.noTags}</option>
          {props.tags.map((t) => (
            <option key={t.id} value={t.id}>
              {t.name}
            </option>
          ))}
        </select>
      </div>
      <button type="button" className="button-secondary" disabled={!n || !tagId || props.busy} onClick={() => props.onTag(tagId)}>
        {w.tagApply}
      </button>
      <button type="button" className="button-secondary" disabled={props.busy} onClick={() => props.onRead("all")}>
        {w.markAllRead}
      </button>
    </div>
  );
}

/** The filter form: drafted here, applied to the URL on submit (a shareable view). */
function Filters({
  search,
  tags,
  onApply,
}: {
  search: AlertSearch;
  tags: components["schemas"]["TagBrief"][];
  onApply(s: AlertSearch): void;
}) {
  const w = useWords(words);
  const { lang } = useI18n();
  const is = (label: string) => (v: string) => `${label} : ${v === "true" ? w.yes : w.no}`;
  const sortLabel: Record<string, string> = {
    "-triggered_at": w.sortNewest,
    triggered_at: w.sortOldest,
    "-cvss": w.sortCvss,
    "-epss": w.sortEpss,
    palier: w.sortPalier,
  };
  const chips = chipsOf(
    search,
    {
      q: (v) => `« ${v} »`,
      palier: (v) => `${w.palier} ${v}`,
      severity: (v) => `${w.severity} : ${w.severities[v] ?? v}`,
      is_kev: is(w.kev),
      has_poc: is(w.poc),
      is_read: (v) => (v === "true" ? w.readRead : w.readUnread),
      min_epss: (v) => `${w.minEpss} : ${percent(Number(v), lang)}`,
      tag: (v) => `${w.tag} : ${v}`,
      rule: (v) => `${w.rule} : ${w.rules[v as (typeof VERIFIED_RULES)[number]] ?? v}`,
    },
    onApply,
  );
  return (
    <FilterPanel
      label={w.filters}
      chips={chips}
      onApply={(values) => {
        const chosen = { ...values, unverified: search.unverified } as AlertSearch;
        onApply(chosen.sort === DEFAULT_SORT ? { ...chosen, sort: undefined } : chosen);
      }}
      onReset={() => onApply({ unverified: search.unverified })}
      lead={<InputFilter label={w.search} name="q" type="search" defaultValue={search.q} placeholder={w.searchHint} maxLength={200} />}
    >
      <CheckFilter legend={w.palier} name="palier" values={search.palier} choices={PALIERS.map((p) => [p, p] as const)} />
      <CheckFilter
        legend={w.severity}
        name="severity"
        values={search.severity}
        choices={SEVERITIES.map((s) => [s, w.severities[s] ?? s] as const)}
      />
      <YesNoFilter label={w.kev} name="is_kev" value={search.is_kev} any={w.any} />
      <YesNoFilter label={w.poc} name="has_poc" value={search.has_poc} any={w.any} />
      <SelectFilter
        label={w.readState}
        name="is_read"
        value={search.is_read === undefined ? undefined : String(search.is_read)}
        any={w.any}
        choices={[
          ["false", w.readUnread],
          ["true", w.readRead],
        ]}
      />
      <InputFilter label={w.minEpss} name="min_epss" type="number" min={0} max={1} step={0.01} defaultValue={search.min_epss} />
      <SelectFilter label={w.tag} name="tag" value={search.tag} any={w.any} choices={tags.map((t) => [t.name, t.name] as const)} />
      {!search.unverified && (
        <SelectFilter
          label={w.rule}
          name="rule"
          value={search.rule?.[0]}
          any={w.any}
          choices={VERIFIED_RULES.map((r) => [r, w.rules[r] ?? r] as const)}
        />
      )}
      <SelectFilter
        label={w.sort}
        name="sort"
        value={search.sort ?? DEFAULT_SORT}
        choices={SORTS.map((s) => [s, sortLabel[s] ?? s] as const)}
      />
    </FilterPanel>
  );
}
