import { useMutation, useQueries, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useId, useState } from "react";
import { api, data } from "../../api/client";
import type { components } from "../../api/schema";
import { formatDate } from "../../format";
import { useI18n, useWords } from "../../i18n/i18n";
import { Combobox } from "../stacks/Combobox";
import { errorText, useDebounced, useProject } from "../stacks/project";
import { calendarMonths } from "./calendar";
import { PastDueList, usePastDue } from "./PastDue";
import { addMonths, formatDay, formatMonth } from "./dates";
import { EolBadge } from "./EolBadge";
import { dateOf, parisToday } from "./status";
import { words } from "./words";
import { Pager } from "../../ui/Pager";

type Sub = components["schemas"]["EolSubOut"];
type Product = components["schemas"]["EolProductOut"];
type ProductDetail = components["schemas"]["EolProductDetailOut"];

const productQuery = (productId: string) => ({
  queryKey: ["eol-products", productId],
  queryFn: () => data(api.GET("/api/v1/eol/products/{product_id}", { params: { path: { product_id: productId } } })),
  staleTime: 10 * 60_000,
});

/** `/p/$projectId/eol`: the project's EOL subscriptions on a calendar and in a list, subscribing, notices. */
export function Eol() {
  const { t } = useI18n();
  const w = useWords(words);
  const { path, canManage } = useProject();
  const subs = useQuery({
    queryKey: ["eol-subscriptions", path.project_id],
    queryFn: () => data(api.GET("/api/v1/organizations/{org_id}/projects/{project_id}/eol-subscriptions", { params: { path } })),
  });
  const productIds = [...new Set((subs.data ?? []).map((s) => s.product_id))];
  const details = useQueries({ queries: productIds.map(productQuery) });
  const products = new Map<string, ProductDetail>();
  for (const d of details) if (d.data) products.set(d.data.id, d.data);
  return (
    <section aria-labelledby="eol-title" className="screen">
      <h1 id="eol-title">{w.title}</h1>
      <p className="muted">{w.intro}</p>
      {!canManage && <p className="notice">{w.readOnly}</p>}
      {subs.isPending && <p role="status">{t.loading}</p>}
      {subs.isError && (
        <div role="alert" className="error">
          {t.loadError}{" "}
          <button type="button" className="button-secondary" onClick={() => void subs.refetch()}>
            {t.retry}
          </button>
        </div>
      )}
      <PastDue orgId={path.org_id} projectId={path.project_id} />
      {subs.data && (
        <>
          <Calendar subs={subs.data} products={products} />
          <Subscriptions subs={subs.data} products={products} />
        </>
      )}
      {canManage && <Subscribe />}
      <Notices products={products} />
    </section>
  );
}

/** The cycles whose end of life has come (subscribed or run by the stack): first, before the months to come. */
function PastDue({ orgId, projectId }: { orgId: string; projectId: string }) {
  const w = useWords(words);
  const pastDue = usePastDue(orgId, projectId);
  if (!pastDue.data?.items.length) return null;
  return (
    <section className="panel" aria-labelledby="eol-past-due-title">
      <h2 id="eol-past-due-title">{w.pastDueTitle}</h2>
      <PastDueList projectId={projectId} items={pastDue.data.items} />
    </section>
  );
}

function Calendar({ subs, products }: { subs: Sub[]; products: Map<string, ProductDetail> }) {
  const w = useWords(words);
  const { lang } = useI18n();
  const today = parisToday();
  const [start, setStart] = useState(today.slice(0, 7));
  const months = calendarMonths(subs, products, start);
  return (
    <section className="panel" aria-labelledby="eol-calendar-title">
      <div className="panel-head">
        <h2 id="eol-calendar-title">{w.calendarTitle}</h2>
        <p className="muted" aria-live="polite">
          {w.months(formatMonth(start, lang), formatMonth(addMonths(start, 11), lang))}
        </p>
        <div className="form-row">
          <button type="button" className="button-secondary" onClick={() => setStart(addMonths(start, -12))}>
            ← {w.prev}
          </button>
          <button
            type="button"
            className="button-secondary"
            onClick={() => setStart(today.slice(0, 7))}
            disabled={start === today.slice(0, 7)}
          >
            {w.today}
          </button>
          <button type="button" className="button-secondary" onClick={() => setStart(addMonths(start, 12))}>
            {w.next} →
          </button>
        </div>
      </div>
      <ol className="calendar">
        {months.map((m) => (
          <li key={m.month} className={m.month === today.slice(0, 7) ? "month current" : "month"}>
            <h3>{formatMonth(m.month, lang)}</h3>
            {m.events.length === 0 ? (
              <p className="muted empty">{w.nothingThisMonth}</p>
            ) : (
              <ul>
                {m.events.map((e) => (
                  <li key={`${e.productId} ${e.cycle} ${e.kind}`} className={`event event-${e.kind}`}>
                    <time dateTime={e.day}>{formatDay(e.day, lang)}</time>
                    <span className="event-what">
                      {e.productName} {e.cycle}
                    </span>
                    <span className={`badge ${e.kind === "eol" ? "badge-bad" : "badge-warn"}`}>
                      {e.kind === "eol" ? w.kindEol : w.kindSupport}
                    </span>
                  </li>
                ))}
              </ul>
            )}
          </li>
        ))}
      </ol>
    </section>
  );
}

function Subscriptions({ subs, products }: { subs: Sub[]; products: Map<string, ProductDetail> }) {
  const w = useWords(words);
  const { lang } = useI18n();
  const { path, canManage } = useProject();
  const queryClient = useQueryClient();
  const unsubscribe = useMutation({
    mutationFn: (id: string) =>
      data(
        api.DELETE("/api/v1/organizations/{org_id}/projects/{project_id}/eol-subscriptions/{subscription_id}", {
          params: { path: { ...path, subscription_id: id } },
        }),
      ),
    onSuccess: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: ["eol-subscriptions", path.project_id] }),
        queryClient.invalidateQueries({ queryKey: ["eol-notices", path.project_id] }),
      ]),
  });
  if (subs.length === 0) return <p>{w.noSubs}</p>;
  const day = (v: string | boolean | null | undefined) => (dateOf(v) ? formatDay(dateOf(v)!, lang) : v === true ? "✓" : "—");
  const days = (n: number | null) => (n === null ? w.noWarning : String(n));
  return (
    <div className="table-wrap">
      <table>
        <caption>{w.subsCaption}</caption>
        <thead>
          <tr>
            <th scope="col">{w.colProduct}</th>
            <th scope="col">{w.colCycle}</th>
            <th scope="col">{w.colStatus}</th>
            <th scope="col">{w.colSupport}</th>
            <th scope="col">{w.colEol}</th>
            <th scope="col">{w.colNotify}</th>
            {canManage && <th scope="col">{w.colActions}</th>}
          </tr>
        </thead>
        <tbody>
          {subs.map((s) => {
            const product = products.get(s.product_id);
            const cycle = s.cycle === null ? undefined : product?.cycles.find((c) => c.cycle === s.cycle);
            const name = `${product?.name ?? s.product_id} ${s.cycle ?? w.allCycles}`;
            return (
              <tr key={s.id}>
                <th scope="row">{product?.name ?? s.product_id}</th>
                <td>{s.cycle ?? w.allCycles}</td>
                <td>{cycle ? <EolBadge cycle={cycle} /> : "—"}</td>
                <td>{cycle ? day(cycle.support) : "—"}</td>
                <td>{cycle ? day(cycle.eol) : "—"}</td>
                <td>{w.notifyBoth(days(s.notify_before_eol_days), days(s.notify_before_support_days))}</td>
                {canManage && (
                  <td>
                    <button
                      type="button"
                      className="button-secondary"
                      aria-label={w.unsubscribeOf(name)}
                      disabled={unsubscribe.isPending}
                      onClick={() => unsubscribe.mutate(s.id)}
                    >
                      {w.unsubscribe}
                    </button>
                  </td>
                )}
              </tr>
            );
          })}
        </tbody>
      </table>
      {unsubscribe.isError && (
        <p role="alert" className="error">
          {errorText(unsubscribe.error, w.saveError)}
        </p>
      )}
    </div>
  );
}

/** A number of days, or null when the field is left empty (no warning). */
const daysOrNull = (v: string): number | null => (v.trim() === "" ? null : Number(v));

function Subscribe() {
  const w = useWords(words);
  const id = useId();
  const { path } = useProject();
  const queryClient = useQueryClient();
  const [text, setText] = useState("");
  const [product, setProduct] = useState<Product | null>(null);
  const [cycle, setCycle] = useState("");
  const [eolDays, setEolDays] = useState("90");
  const [supportDays, setSupportDays] = useState("30");
  const q = useDebounced(text.trim(), 250);
  const search = useQuery({
    queryKey: ["eol-products", "search", q],
    queryFn: () => data(api.GET("/api/v1/eol/products", { params: { query: { q, page_size: 10 } } })),
    enabled: q.length >= 2,
    staleTime: 60_000,
  });
  const detail = useQuery({ ...productQuery(product?.id ?? ""), enabled: !!product });
  const changed = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: ["eol-subscriptions", path.project_id] }),
      queryClient.invalidateQueries({ queryKey: ["stats", path.project_id] }),
    ]);
  const subscribe = useMutation({
    mutationFn: () =>
      data(
        api.POST("/api/v1/organizations/{org_id}/projects/{project_id}/eol-subscriptions", {
          params: { path },
          body: {
            product_id: product!.id,
            cycle: cycle || null,
            notify_before_eol_days: daysOrNull(eolDays),
            notify_before_support_days: daysOrNull(supportDays),
          },
        }),
      ),
    onSuccess: () => changed(),
  });
  const fromStack = useMutation({
    mutationFn: () =>
      data(api.POST("/api/v1/organizations/{org_id}/projects/{project_id}/eol-subscriptions/from-stack", { params: { path } })),
    onSuccess: () => changed(),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (product) subscribe.mutate();
  };
  const cycles = detail.data?.cycles ?? [];
  return (
    <>
      <form className="panel" onSubmit={submit} aria-labelledby={`${id}-title`}>
        <h2 id={`${id}-title`}>{w.subscribeTitle}</h2>
        <Combobox<Product>
          label={w.product}
          hint={w.productHint}
          text={text}
          onText={(v) => {
            setText(v);
            if (product && v !== product.name) setProduct(null);
          }}
          options={q.length >= 2 && q === text.trim() ? search.data?.items : undefined}
          loading={q.length >= 2 && (search.isFetching || q !== text.trim())}
          optionKey={(p) => p.id}
          optionText={(p) => p.name}
          renderOption={(p) => (
            <>
              <span className="option-main">{p.name}</span>
              <span className="option-sub">
                <span className="mono">{p.id}</span>
                {p.category && ` · ${p.category}`}
              </span>
            </>
          )}
          onPick={(p) => {
            setProduct(p);
            setCycle("");
          }}
          noneText={w.productNone}
          loadingText={w.searching}
        />
        <div className="form-grid">
          <div className="field">
            <label htmlFor={`${id}-cycle`}>{w.cycle}</label>
            <select id={`${id}-cycle`} value={cycle} disabled={!product || !detail.data} onChange={(e) => setCycle(e.target.value)}>
              {!product ? (
                <option value="">{w.chooseProduct}</option>
              ) : (
                <>
                  <option value="">{w.everyCycle}</option>
                  {cycles.map((c) => (
                    <option key={c.cycle} value={c.cycle}>
                      {c.cycle}
                    </option>
                  ))}
                </>
              )}
            </select>
          </div>
          <div className="field">
            <label htmlFor={`${id}-eol`}>{w.notifyEol}</label>
            <input id={`${id}-eol`} type="number" min={0} max={3650} value={eolDays} onChange={(e) => setEolDays(e.target.value)} />
          </div>
          <div className="field">
            <label htmlFor={`${id}-support`}>{w.notifySupport}</label>
            <input
              id={`${id}-support`}
              type="number"
              min={0}
              max={3650}
              value={supportDays}
              onChange={(e) => setSupportDays(e.target.value)}
            />
          </div>
        </div>
        <button type="submit" className="button-primary" disabled={!product || subscribe.isPending}>
          {w.subscribe}
        </button>
        <p role="status" className="status-line">
          {subscribe.isSuccess && w.subscribed(`${product?.name ?? subscribe.data.product_id} ${subscribe.data.cycle ?? w.allCycles}`)}
        </p>
        {subscribe.isError && (
          <p role="alert" className="error">
            {errorText(subscribe.error, w.saveError)}
          </p>
        )}
      </form>
      <div className="panel">
        <h2>{w.fromStack}</h2>
        <p className="muted">{w.fromStackHint}</p>
        <button type="button" className="button-secondary" disabled={fromStack.isPending} onClick={() => fromStack.mutate()}>
          {w.fromStack}
        </button>
        <p role="status" className="status-line">
          {fromStack.isSuccess && w.fromStackDone(fromStack.data.created.length, fromStack.data.existing.length)}
        </p>
        {fromStack.isError && (
          <p role="alert" className="error">
            {errorText(fromStack.error, w.saveError)}
          </p>
        )}
      </div>
    </>
  );
}

const PAGE_SIZE = 20;

function Notices({ products }: { products: Map<string, ProductDetail> }) {
  const w = useWords(words);
  const { t, lang } = useI18n();
  const { path } = useProject();
  const [page, setPage] = useState(1);
  const notices = useQuery({
    queryKey: ["eol-notices", path.project_id, { page }],
    queryFn: () =>
      data(
        api.GET("/api/v1/organizations/{org_id}/projects/{project_id}/eol-notices", {
          params: { path, query: { page, page_size: PAGE_SIZE } },
        }),
      ),
    placeholderData: (prev) => prev,
  });
  const pages = Math.max(1, Math.ceil((notices.data?.total ?? 0) / PAGE_SIZE));
  return (
    <section className="panel" aria-labelledby="eol-notices-title">
      <h2 id="eol-notices-title">{w.noticesTitle}</h2>
      {notices.isPending && <p role="status">{t.loading}</p>}
      {notices.isError && (
        <p role="alert" className="error">
          {t.loadError}
        </p>
      )}
      {notices.data &&
        (notices.data.items.length === 0 ? (
          <p className="muted">{w.noNotices}</p>
        ) : (
          <>
            <div className="table-wrap">
              <table>
                <caption>{w.noticesCaption}</caption>
                <thead>
                  <tr>
                    <th scope="col">{w.colProduct}</th>
                    <th scope="col">{w.colKind}</th>
                    <th scope="col">{w.colStage}</th>
                    <th scope="col">{w.colDue}</th>
                    <th scope="col" className="num">
                      {w.colDaysLeft}
                    </th>
                    <th scope="col">{w.colSent}</th>
                  </tr>
                </thead>
                <tbody>
                  {notices.data.items.map((n) => (
                    <tr key={n.id}>
                      <th scope="row">
                        {products.get(n.product_id)?.name ?? n.product_id} {n.cycle}
                      </th>
                      <td>{n.kind === "eol" ? w.kindEol : w.kindSupport}</td>
                      <td>
                        <span className={`badge ${n.stage === "reached" ? "badge-bad" : "badge-warn"}`}>{w.stages[n.stage]}</span>
                      </td>
                      <td>{formatDay(n.due_on, lang)}</td>
                      <td className="num">{n.days_left}</td>
                      <td>{formatDate(n.created_at, lang)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            {pages > 1 && <Pager page={page} pages={pages} onPage={setPage} label={w.noticesTitle} status={w.page(page, pages)} />}
          </>
        ))}
    </section>
  );
}
