import { keepPreviousData, useMutation, useQueries, useQuery, useQueryClient } from "@tanstack/react-query";
import { Link, useNavigate, useParams } from "@tanstack/react-router";
import { type FormEvent, useId, useState } from "react";
import { api, data } from "../../api/client";
import type { components } from "../../api/schema";
import { useI18n, useWords } from "../../i18n/i18n";
import { EolBadge } from "../eol/EolBadge";
import { urlQuery, urlsQuery, watchTechnology } from "../urls/queries";
import { Combobox } from "./Combobox";
import { errorText, useDebounced, useProject } from "./project";
import { type ItemsFilter, ITEMS_PAGE_SIZE, itemsQuery, sbomsQuery, stackQuery } from "./queries";
import { SbomDocuments } from "./SbomDocuments";
import { SbomImportPanel } from "./SbomImport";
import { words } from "./words";
import { Pager } from "../../ui/Pager";

type Stack = components["schemas"]["StackOut"];
type Item = components["schemas"]["StackItemOut"];
type ItemType = components["schemas"]["StackItemIn"]["item_type"];
type Severity = NonNullable<components["schemas"]["StackItemIn"]["min_severity"]>;
type Suggestion = components["schemas"]["ProductSuggestion"];

export const ITEM_TYPES: ItemType[] = ["product", "cpe", "purl", "vendor", "keyword", "cve"];
export const SEVERITIES: Severity[] = ["critical", "high", "medium", "low"];

/**
 * `/p/$projectId/stacks/$stackId`: one stack — its SBOM import and documents, its items (paged, with
 * their origin and EOL status); admins import, add, change and remove.
 */
export function StackDetail() {
  const { t } = useI18n();
  const w = useWords(words);
  const { path, canManage } = useProject();
  const { stackId = "" } = useParams({ strict: false });
  const stack = useQuery(stackQuery(path, stackId));
  // The items' origin filter: set from the list or from an SBOM's « Voir ses éléments ».
  const [sbomId, setSbomId] = useState("");
  return (
    <section aria-labelledby="stack-title" className="screen">
      <p>
        <Link to="/p/$projectId/stacks" params={{ projectId: path.project_id }}>
          ← {w.back}
        </Link>
      </p>
      <h1 id="stack-title">{stack.data?.name ?? w.title}</h1>
      {!canManage && <p className="notice">{w.readOnly}</p>}
      {stack.isPending && <p role="status">{t.loading}</p>}
      {stack.isError && (
        <div role="alert" className="error">
          {errorText(stack.error, t.loadError)}
        </div>
      )}
      {stack.data && (
        <>
          {canManage && <StackActions stack={stack.data} />}
          {/* The form first: on a new stack it is what the user came for, not the SBOM panels. */}
          {canManage && <AddItem stack={stack.data} />}
          <SbomImportPanel stackId={stack.data.id} />
          <SbomDocuments stackId={stack.data.id} onFilter={setSbomId} />
          <Items stackId={stack.data.id} sbomId={sbomId} onSbom={setSbomId} />
          {canManage && <DetectedTechnologies stack={stack.data} />}
        </>
      )}
    </section>
  );
}

/** After a change to a stack: its detail and the project's list (item counts, EOL). */
function useStackChanged(stackId: string) {
  const queryClient = useQueryClient();
  const { path } = useProject();
  return () =>
    queryClient.invalidateQueries({
      queryKey: ["stacks", path.project_id],
      predicate: (q) => q.queryKey.length === 2 || q.queryKey[2] === stackId,
    });
}

function StackActions({ stack }: { stack: Stack }) {
  const w = useWords(words);
  const id = useId();
  const { path } = useProject();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const changed = useStackChanged(stack.id);
  const [name, setName] = useState(stack.name);
  const [confirming, setConfirming] = useState(false);
  const sp = { ...path, stack_id: stack.id };
  const rename = useMutation({
    mutationFn: () =>
      data(api.PATCH("/api/v1/organizations/{org_id}/projects/{project_id}/stacks/{stack_id}", { params: { path: sp }, body: { name } })),
    onSuccess: () => changed(),
  });
  const remove = useMutation({
    mutationFn: () => data(api.DELETE("/api/v1/organizations/{org_id}/projects/{project_id}/stacks/{stack_id}", { params: { path: sp } })),
    onSuccess: async () => {
      queryClient.removeQueries({ queryKey: ["stacks", path.project_id, stack.id] });
      await queryClient.invalidateQueries({ queryKey: ["stacks", path.project_id], exact: true });
      await navigate({ to: "/p/$projectId/stacks", params: { projectId: path.project_id } });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (name.trim() && name !== stack.name) rename.mutate();
  };
  return (
    <div className="toolbar">
      <form onSubmit={submit} className="form-row">
        <div className="field">
          <label htmlFor={id}>{w.newName}</label>
          <input id={id} value={name} maxLength={100} required onChange={(e) => setName(e.target.value)} />
        </div>
        <button type="submit" className="button-secondary" disabled={rename.isPending}>
          {w.rename}
        </button>
      </form>
      <div className="form-row">
        {confirming ? (
          <>
            <button type="button" className="button-danger" onClick={() => remove.mutate()} disabled={remove.isPending}>
              {w.confirmDel}
            </button>
            <button type="button" className="button-secondary" onClick={() => setConfirming(false)}>
              {w.cancel}
            </button>
          </>
        ) : (
          <button type="button" className="button-secondary" onClick={() => setConfirming(true)}>
            {w.del}
          </button>
        )}
      </div>
      <p role="status" className="status-line">
        {rename.isSuccess && w.renamed}
      </p>
      {(rename.isError || remove.isError) && (
        <p role="alert" className="error">
          {errorText(rename.error ?? remove.error, w.saveError)}
        </p>
      )}
    </div>
  );
}

/**
 * The stack's items, a page at a time (GET …/items: a stack loaded from an SBOM may hold tens of
 * thousands), searched by value and filtered by origin (an SBOM of the stack).
 */
function Items({ stackId, sbomId, onSbom }: { stackId: string; sbomId: string; onSbom(id: string): void }) {
  const w = useWords(words);
  const { t } = useI18n();
  const id = useId();
  const { path, canManage } = useProject();
  const [text, setText] = useState("");
  const [page, setPage] = useState(1);
  const q = useDebounced(text.trim(), 250);
  const sboms = useQuery(sbomsQuery(path, stackId));
  const filter: ItemsFilter = { ...(q && { q }), ...(sbomId && { sbom_id: sbomId }), page };
  const list = useQuery({ ...itemsQuery(path, stackId, filter), placeholderData: keepPreviousData });
  // A new search or origin starts again at the first page.
  const [seen, setSeen] = useState({ q, sbomId });
  if (seen.q !== q || seen.sbomId !== sbomId) {
    setSeen({ q, sbomId });
    setPage(1);
  }
  const origin = (item: Item) => {
    if (!item.sbom_id) return w.byHand;
    const sbom = sboms.data?.find((s) => s.id === item.sbom_id);
    return sbom ? (sbom.name ?? w.unnamed) : "SBOM";
  };
  const total = list.data?.total ?? 0;
  const pages = Math.max(1, Math.ceil(total / ITEMS_PAGE_SIZE));
  const filtered = !!(q || sbomId);
  return (
    <section aria-labelledby={`${id}-title`} className="stack-items">
      <h2 id={`${id}-title`} className="visually-hidden">
        {w.itemsCaption(total)}
      </h2>
      <div className="filters">
        <div className="field">
          <label htmlFor={`${id}-q`}>{w.searchItems}</label>
          <input id={`${id}-q`} type="search" value={text} maxLength={500} onChange={(e) => setText(e.target.value)} />
        </div>
        {!!sboms.data?.length && (
          <div className="field">
            <label htmlFor={`${id}-origin`}>{w.origin}</label>
            <select id={`${id}-origin`} value={sbomId} onChange={(e) => onSbom(e.target.value)}>
              <option value="">{w.anyOrigin}</option>
              {sboms.data.map((s) => (
                <option key={s.id} value={s.id}>
                  {s.name ?? w.unnamed}
                </option>
              ))}
            </select>
          </div>
        )}
      </div>
      {list.isPending && <p role="status">{t.loading}</p>}
      {list.isError && (
        <div role="alert" className="error">
          {errorText(list.error, t.loadError)}{" "}
          <button type="button" className="button-secondary" onClick={() => void list.refetch()}>
            {t.retry}
          </button>
        </div>
      )}
      {list.data &&
        (total === 0 && !filtered ? (
          <p>{w.noItems}</p>
        ) : (
          <>
            <div className="table-wrap">
              <table>
                <caption>{w.itemsCaption(total)}</caption>
                <thead>
                  <tr>
                    <th scope="col">{w.colType}</th>
                    <th scope="col">{w.colValue}</th>
                    <th scope="col">{w.colOrigin}</th>
                    <th scope="col">{w.colSeverity}</th>
                    <th scope="col">{w.colTags}</th>
                    <th scope="col">{w.colEolStatus}</th>
                    {canManage && <th scope="col">{w.colActions}</th>}
                  </tr>
                </thead>
                <tbody>
                  {list.data.items.length === 0 && (
                    <tr>
                      <td colSpan={canManage ? 7 : 6} className="muted">
                        {w.noMatch}
                      </td>
                    </tr>
                  )}
                  {list.data.items.map((item) => (
                    <ItemRow key={item.id} stackId={stackId} item={item} origin={origin(item)} />
                  ))}
                </tbody>
              </table>
            </div>
            {pages > 1 && (
              <Pager
                page={page}
                pages={pages}
                onPage={setPage}
                label={w.itemsPage(page, pages, total)}
                status={w.itemsPage(page, pages, total)}
              />
            )}
          </>
        ))}
    </section>
  );
}

function ItemRow({ stackId, item, origin }: { stackId: string; item: Item; origin: string }) {
  const w = useWords(words);
  const { path, canManage } = useProject();
  const changed = useStackChanged(stackId);
  const ip = { ...path, stack_id: stackId, item_id: item.id };
  const update = useMutation({
    mutationFn: (min_severity: Severity | null) =>
      data(
        api.PATCH("/api/v1/organizations/{org_id}/projects/{project_id}/stacks/{stack_id}/items/{item_id}", {
          params: { path: ip },
          body: { min_severity },
        }),
      ),
    onSuccess: () => changed(),
  });
  const remove = useMutation({
    mutationFn: () =>
      data(api.DELETE("/api/v1/organizations/{org_id}/projects/{project_id}/stacks/{stack_id}/items/{item_id}", { params: { path: ip } })),
    onSuccess: () => changed(),
  });
  const type = item.item_type as ItemType;
  const severity = (item.min_severity ?? "") as Severity | "";
  return (
    <tr>
      <td>{w.types[type] ?? item.item_type}</td>
      <th scope="row" className="mono">
        {item.value}
        {item.matching && (
          <span className="sub" role="status">
            {w.matching(item.matching)}
          </span>
        )}
      </th>
      <td className={item.sbom_id ? undefined : "muted"}>{origin}</td>
      <td>
        {canManage ? (
          <select
            aria-label={w.severityOf(item.value)}
            value={severity}
            disabled={update.isPending}
            onChange={(e) => update.mutate((e.target.value || null) as Severity | null)}
          >
            <option value="">{w.anySeverity}</option>
            {SEVERITIES.map((s) => (
              <option key={s} value={s}>
                {w.severities[s]}
              </option>
            ))}
          </select>
        ) : severity ? (
          w.severities[severity]
        ) : (
          w.anySeverity
        )}
      </td>
      <td>
        {item.tags.map((tag) => (
          <span key={tag.id} className="tag" style={{ borderColor: tag.color }}>
            {tag.name}
          </span>
        ))}
      </td>
      <td>
        {item.eol ? (
          <>
            <EolBadge cycle={item.eol} />
            <span className="sub">{w.eolCycle(item.eol.product_name, item.eol.cycle)}</span>
          </>
        ) : (
          w.noEol
        )}
      </td>
      {canManage && (
        <td>
          <button
            type="button"
            className="button-secondary"
            aria-label={w.removeItem(item.value)}
            onClick={() => remove.mutate()}
            disabled={remove.isPending}
          >
            {w.remove}
          </button>
          {(update.isError || remove.isError) && (
            <span role="alert" className="error">
              {errorText(update.error ?? remove.error, w.saveError)}
            </span>
          )}
        </td>
      )}
    </tr>
  );
}

/** The value to post: a product or package with the version typed beside it (after `@`). */
export function itemValue(type: ItemType, value: string, version: string): string {
  const v = value.trim();
  const ver = version.trim();
  if (!ver || (type !== "product" && type !== "purl") || v.includes("@")) return v;
  return `${v}@${ver}`;
}

function AddItem({ stack }: { stack: Stack }) {
  const w = useWords(words);
  const id = useId();
  const { path } = useProject();
  const changed = useStackChanged(stack.id);
  const [text, setText] = useState("");
  const [type, setType] = useState<ItemType>("product");
  const [value, setValue] = useState("");
  const [version, setVersion] = useState("");
  const [severity, setSeverity] = useState<Severity | "">("");
  const [tagIds, setTagIds] = useState<string[]>([]);
  const queryClient = useQueryClient();
  const invalidateAlerts = (projectId: string) =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: ["alerts", projectId] }),
      queryClient.invalidateQueries({ queryKey: ["stats", projectId] }),
    ]);
  const q = useDebounced(text.trim(), 250);
  const suggestions = useQuery({
    queryKey: ["products", q],
    queryFn: () => data(api.GET("/api/v1/products", { params: { query: { q, limit: 10 } } })),
    enabled: q.length >= 2,
    staleTime: 60_000,
  });
  const tags = useQuery({
    queryKey: ["tags", path.project_id],
    queryFn: () => data(api.GET("/api/v1/organizations/{org_id}/projects/{project_id}/tags", { params: { path } })),
  });
  const add = useMutation({
    mutationFn: () =>
      data(
        api.POST("/api/v1/organizations/{org_id}/projects/{project_id}/stacks/{stack_id}/items", {
          params: { path: { ...path, stack_id: stack.id } },
          body: { item_type: type, value: itemValue(type, value, version), min_severity: severity || null, tag_ids: tagIds },
        }),
      ),
    onSuccess: async () => {
      setValue("");
      setVersion("");
      setText("");
      // Each item's threshold is chosen for it: the next starts from none again.
      setSeverity("");
      // The new item's alerts: the inbox and the figures change too.
      await Promise.all([changed(), invalidateAlerts(path.project_id)]);
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (value.trim()) add.mutate();
  };
  const pick = (s: Suggestion) => {
    setType(s.item.item_type);
    setValue(s.item.value);
    document.getElementById(`${id}-version`)?.focus();
  };
  return (
    <form className="panel" onSubmit={submit} aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{w.addTitle}</h2>
      <Combobox<Suggestion>
        label={w.suggest}
        hint={w.suggestHint}
        text={text}
        onText={setText}
        options={q.length >= 2 && q === text.trim() ? suggestions.data : undefined}
        loading={q.length >= 2 && (suggestions.isFetching || q !== text.trim())}
        optionKey={(s) => s.item.value}
        optionText={(s) => s.product_name ?? s.product}
        renderOption={(s) => (
          <>
            <span className="option-main">{s.product_name ?? s.product}</span>
            <span className="option-sub">
              {s.vendor_name ?? s.vendor} · <span className="mono">{s.item.value}</span> · {w.cves(s.cve_count)}
            </span>
            {/* What this spelling covers: two suggestions of one product differ by their sources and CVEs. */}
            {s.origins && s.origins.length > 0 && (
              <span className="option-sub">{w.covers(s.origins.map((o) => w.origins[o] ?? o).join(", "), s.latest_cves ?? [])}</span>
            )}
          </>
        )}
        onPick={pick}
        noneText={w.suggestNone}
        loadingText={w.suggestLoading}
      />
      <div className="form-grid">
        <div className="field">
          <label htmlFor={`${id}-type`}>{w.type}</label>
          <select id={`${id}-type`} value={type} onChange={(e) => setType(e.target.value as ItemType)}>
            {ITEM_TYPES.map((it) => (
              <option key={it} value={it}>
                {w.types[it]}
              </option>
            ))}
          </select>
        </div>
        <div className="field field-wide">
          <label htmlFor={`${id}-value`}>{w.value}</label>
          <input
            id={`${id}-value`}
            className="mono"
            value={value}
            required
            maxLength={500}
            aria-describedby={`${id}-value-hint`}
            onChange={(e) => setValue(e.target.value)}
          />
          <span id={`${id}-value-hint`} className="sub">
            {w.hints[type]}
          </span>
        </div>
        {(type === "product" || type === "purl") && (
          <div className="field">
            <label htmlFor={`${id}-version`}>{w.version}</label>
            <input
              id={`${id}-version`}
              value={version}
              maxLength={100}
              aria-describedby={`${id}-version-hint`}
              onChange={(e) => setVersion(e.target.value)}
            />
            <span id={`${id}-version-hint`} className="sub">
              {w.versionHint(type === "purl" ? "pkg:pypi/django@4.2.1" : "palo_alto_networks:pan-os@10.2.5")}
            </span>
          </div>
        )}
        <div className="field">
          <label htmlFor={`${id}-severity`}>{w.severity}</label>
          <select id={`${id}-severity`} value={severity} onChange={(e) => setSeverity(e.target.value as Severity | "")}>
            <option value="">{w.anySeverity}</option>
            {SEVERITIES.map((s) => (
              <option key={s} value={s}>
                {w.severities[s]}
              </option>
            ))}
          </select>
        </div>
      </div>
      {!!tags.data?.length && (
        <fieldset className="checks">
          <legend>{w.tags}</legend>
          {tags.data.map((tag) => (
            <label key={tag.id}>
              <input
                type="checkbox"
                checked={tagIds.includes(tag.id)}
                onChange={(e) => setTagIds((ids) => (e.target.checked ? [...ids, tag.id] : ids.filter((x) => x !== tag.id)))}
              />{" "}
              {tag.name}
            </label>
          ))}
        </fieldset>
      )}
      <button type="submit" className="button-primary" disabled={add.isPending}>
        {w.add}
      </button>
      <p role="status" className="status-line">
        {add.isSuccess && w.added(add.data.value, add.data.alertes_creees)}
      </p>
      {add.isSuccess && add.data.avertissement && <p className="notice">{add.data.avertissement}</p>}
      {add.isError && (
        <p role="alert" className="error">
          {errorText(add.error, w.saveError)}
        </p>
      )}
    </form>
  );
}

/**
 * The versioned technologies (with a CPE) detected on the project's monitored URLs (the newest 20),
 * one click each to watch on this stack; those the stack already holds are left out.
 */
function DetectedTechnologies({ stack }: { stack: Stack }) {
  const w = useWords(words);
  const { path } = useProject();
  const changed = useStackChanged(stack.id);
  const urls = useQuery(urlsQuery(path, 1));
  const details = useQueries({ queries: (urls.data?.items ?? []).filter((u) => u.last_scanned_at).map((u) => urlQuery(path, u.id)) });
  const watch = useMutation({
    mutationFn: (v: { urlId: string; name: string }) => watchTechnology(path, v.urlId, v.name, stack.id),
    onSuccess: () => changed(),
  });
  const held = new Set(stack.items.map((i) => i.value));
  const seen = new Set<string>();
  const techs = details.flatMap((d) =>
    (d.data?.technologies ?? [])
      .filter((tech) => tech.cpe && tech.version)
      .filter((tech) => {
        const key = `${tech.name}@${tech.version}`;
        const cpe = tech.cpe!.split(":");
        cpe[5] = tech.version!;
        if (seen.has(key) || held.has(cpe.join(":"))) return false;
        seen.add(key);
        return true;
      })
      .map((tech) => ({ tech, url: d.data!.url, urlId: d.data!.id })),
  );
  if (!urls.data?.items.length) return null;
  return (
    <section className="panel" aria-labelledby="detected-title">
      <h2 id="detected-title">{w.detectedTitle}</h2>
      {techs.length === 0 ? (
        <p className="muted">{w.detectedNone}</p>
      ) : (
        <ul className="tech-list">
          {techs.map(({ tech, url, urlId }) => (
            <li key={`${tech.name}@${tech.version}`}>
              <span>
                <strong>{tech.name}</strong> {tech.version} <span className="sub">{w.detectedFrom(url)}</span>
              </span>
              <button
                type="button"
                className="button-secondary"
                disabled={watch.isPending}
                onClick={() => watch.mutate({ urlId, name: tech.name })}
              >
                {w.detectedAdd(`${tech.name} ${tech.version}`)}
              </button>
            </li>
          ))}
        </ul>
      )}
      <p role="status" className="status-line">
        {watch.isSuccess && w.added(watch.data.value, watch.data.alertes_creees)}
      </p>
      {watch.isError && (
        <p role="alert" className="error">
          {errorText(watch.error, w.saveError)}
        </p>
      )}
    </section>
  );
}
