import { type UseQueryResult, useQuery } from "@tanstack/react-query";
import { useNavigate, useSearch } from "@tanstack/react-router";
import { type FormEvent, type ReactNode, useId, useMemo, useState } from "react";
import { ApiError, api, data } from "../../api/client";
import type { components } from "../../api/schema";
import { type Session, sessionQuery } from "../../api/session";
import { useI18n, useWords } from "../../i18n/i18n";
import type { Lang } from "../../i18n/messages";
import { useCurrent } from "../../layout/current";
import { Chart, type ChartTable } from "./Chart";
import type { ChartOption } from "./echarts";
import { GRANULARITIES, type Granularity, parisToday, type StatsSearch, yearBefore } from "./search";
import { formatDay } from "../cves/numbers";
import { words } from "./words";

type W = typeof words.fr;
type Schemas = components["schemas"];

const AXES = ["published", "updated", "kev_added", "poc_published", "epss_published"] as const;
const DIMENSIONS = ["vendor", "product", "cwe", "severity", "assigner", "source"] as const;
const METRICS = ["cvss", "epss", "severity", "cwe", "maturite_exploit", "age"] as const;
const DELAYS = ["publication_to_kev", "publication_to_poc", "publication_to_epss", "reservation_to_publication"] as const;
const PROJECT_DELAYS = ["publication_to_alert", "alert_to_case_closed"] as const;
type DelayMetric = (typeof DELAYS)[number] | (typeof PROJECT_DELAYS)[number];

/** The parameters every statistics call takes (no period: the server's default, the last year of the data held). */
interface Base {
  from?: string;
  to?: string;
  project_id?: string;
  include_reference_only?: boolean;
}

const nf = (lang: Lang) => new Intl.NumberFormat(lang === "fr" ? "fr-FR" : "en-GB", { maximumFractionDigits: 5 });

function errorText(err: unknown, w: W): string {
  if (err instanceof ApiError && err.status === 422) return w.invalid;
  if (err instanceof ApiError && err.status === 404) return w.projectNotFound;
  return err instanceof Error ? err.message : String(err);
}

/** `/stats`: the statistics wall, for the whole corpus or the current project. */
export function Stats() {
  const { data: session } = useQuery(sessionQuery);
  return session ? <Wall session={session} /> : null;
}

function Wall({ session }: { session: Session }) {
  const w = useWords(words);
  const search = useSearch({ strict: false }) as StatsSearch;
  const navigate = useNavigate();
  const { project } = useCurrent(session);
  const granularity = search.granularity ?? "month";
  const projectId = search.project_id;
  const projectName = session.organizations.flatMap((o) => o.projects).find((p) => p.id === projectId)?.name ?? project?.name;
  // No period in the URL: the server's default (the last year of the data held), read back from the totals.
  const base: Base = {
    ...(search.from && { from: search.from }),
    ...(search.to && { to: search.to }),
    ...(projectId && { project_id: projectId }),
    ...(search.include_reference_only && { include_reference_only: true }),
  };
  const totals = useQuery(totalsQuery(base));
  const from = search.from ?? totals.data?.from;
  const to = search.to ?? totals.data?.to;
  const go = (next: StatsSearch) => void navigate({ to: "/stats", search: { ...search, ...next } });
  const scopeName = useId();
  const referenceId = useId();

  return (
    <section aria-labelledby="stats-title" className="screen">
      <h1 id="stats-title">{w.title}</h1>
      <p className="muted">{w.intro}</p>
      <div className="stats-controls">
        <fieldset className="stats-scope">
          <legend>{w.scope}</legend>
          <label>
            <input type="radio" name={scopeName} checked={!projectId} onChange={() => go({ project_id: undefined })} /> {w.scopeCorpus}
          </label>
          <label>
            <input
              type="radio"
              name={scopeName}
              checked={!!projectId}
              disabled={!project && !projectId}
              onChange={() => project && go({ project_id: project.id })}
            />{" "}
            {w.scopeProject(projectName ?? "—")}
          </label>
        </fieldset>
        <PeriodForm key={`${from}/${to}/${granularity}`} from={from ?? ""} to={to ?? ""} granularity={granularity} onApply={go} />
        <div className="field-inline">
          <input
            id={referenceId}
            type="checkbox"
            checked={!!search.include_reference_only}
            onChange={(e) => go({ include_reference_only: e.target.checked || undefined })}
          />
          <label htmlFor={referenceId}>{w.includeReferenceOnly}</label>
        </div>
      </div>
      {from && to && from > to ? (
        <p role="alert" className="error">
          {w.fromAfterTo}
        </p>
      ) : (
        <div className="stats-grid">
          <Totals base={base} followsData={!search.from && !search.to} onGo={go} />
          <Timeseries base={base} granularity={granularity} />
          <Top base={base} />
          <Trend base={base} granularity={granularity} />
          <Distribution base={base} />
          <Delays base={base} granularity={granularity} />
        </div>
      )}
    </section>
  );
}

function PeriodForm(props: { from: string; to: string; granularity: Granularity; onApply(s: StatsSearch): void }) {
  const w = useWords(words);
  const [from, setFrom] = useState(props.from);
  const [to, setTo] = useState(props.to);
  const [granularity, setGranularity] = useState(props.granularity);
  const id = useId();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    props.onApply({ from, to, granularity });
  };
  return (
    <form className="stats-period" onSubmit={submit}>
      <div className="field">
        <label htmlFor={`${id}-from`}>{w.from}</label>
        <input id={`${id}-from`} type="date" required value={from} onChange={(e) => setFrom(e.target.value)} />
      </div>
      <div className="field">
        <label htmlFor={`${id}-to`}>{w.to}</label>
        <input id={`${id}-to`} type="date" required value={to} onChange={(e) => setTo(e.target.value)} />
      </div>
      <div className="field">
        <label htmlFor={`${id}-g`}>{w.granularity}</label>
        <select id={`${id}-g`} value={granularity} onChange={(e) => setGranularity(e.target.value as Granularity)}>
          {GRANULARITIES.map((g) => (
            <option key={g} value={g}>
              {w.granularities[g]}
            </option>
          ))}
        </select>
      </div>
      <button type="submit" className="button-primary">
        {w.apply}
      </button>
    </form>
  );
}

/** One card of the wall: its title, its own controls, and its own query's state (one failing does not blank the others). */
function Card<T>(props: {
  id: string;
  title: string;
  controls?: ReactNode;
  query: UseQueryResult<T>;
  wide?: boolean;
  children(data: T): ReactNode;
}) {
  const w = useWords(words);
  const { query } = props;
  return (
    <section className={`stats-card${props.wide ? " stats-wide" : ""}`} aria-labelledby={props.id} data-card={props.id}>
      <h2 id={props.id}>{props.title}</h2>
      {props.controls && <div className="stats-card-controls">{props.controls}</div>}
      {query.isPending && <p role="status">{w.loading}</p>}
      {query.isError && (
        <div role="alert" className="error">
          {errorText(query.error, w)}{" "}
          <button type="button" className="button-secondary" onClick={() => void query.refetch()}>
            {w.retry}
          </button>
        </div>
      )}
      {query.data !== undefined && props.children(query.data)}
    </section>
  );
}

/** A labelled select of a card's parameter. */
function Choice<V extends string>(props: {
  label: string;
  value: V;
  values: readonly V[];
  names: Record<string, string>;
  onChange(v: NoInfer<V>): void;
}) {
  const id = useId();
  return (
    <div className="field-inline">
      <label htmlFor={id}>{props.label}</label>
      <select id={id} value={props.value} onChange={(e) => props.onChange(e.target.value as V)}>
        {props.values.map((v) => (
          <option key={v} value={v}>
            {props.names[v] ?? v}
          </option>
        ))}
      </select>
    </div>
  );
}

const key = (base: Base, kind: string, params: object) => [
  "stats",
  base.project_id ?? null,
  kind,
  base.from ?? null,
  base.to ?? null,
  !!base.include_reference_only,
  params,
];

const TOTALS = ["published", "kev", "poc", "triple_threat", "avg_cvss", "avg_epss", "rejected", "reserved", "without_date"] as const;

/** The totals' query: the wall reads the period it resolved from it too (one request). */
const totalsQuery = (base: Base) => ({
  queryKey: key(base, "totals", {}),
  queryFn: () => data(api.GET("/api/v1/stats/totals", { params: { query: base } })),
});

/** The period's figures, and in words what they leave out and where the data ends when the period holds none. */
function Totals({ base, followsData, onGo }: { base: Base; followsData: boolean; onGo(s: StatsSearch): void }) {
  const w = useWords(words);
  const { lang } = useI18n();
  const query = useQuery(totalsQuery(base));
  return (
    <Card id="stats-totals" title={w.totalsTitle} query={query} wide>
      {(t) => (
        <>
          <dl className="stats-figures">
            {TOTALS.map((k) => (
              <div key={k} title={k === "triple_threat" ? w.tripleHint : k === "without_date" ? w.withoutDateHint : undefined}>
                <dt>{w.totals[k]}</dt>
                <dd data-figure={k}>{t[k] === null ? w.none : nf(lang).format(t[k])}</dd>
              </div>
            ))}
          </dl>
          {t.published === 0 && (
            <p className="notice" data-note="empty-period">
              {t.newest_published ? w.emptyPeriod(formatDay(t.newest_published, lang)) : w.noPublished}{" "}
              {t.newest_published && (
                <button
                  type="button"
                  className="button-secondary"
                  onClick={() => onGo({ from: yearBefore(t.newest_published!), to: t.newest_published! })}
                >
                  {w.showNewest}
                </button>
              )}
            </p>
          )}
          {followsData && t.published > 0 && t.to < parisToday() && (
            <p className="muted" data-note="follows-data">
              {w.followsData(formatDay(t.to, lang))}
            </p>
          )}
          {!!t.reference_only && !base.include_reference_only && (
            <p className="muted" data-note="reference-only">
              {w.referenceOnlyApart(nf(lang).format(t.reference_only))}
            </p>
          )}
        </>
      )}
    </Card>
  );
}

/** Why a chart is empty, beside it (a chart never stands alone empty). */
function EmptyNote({ text }: { text: string }) {
  return (
    <p className="muted" data-note="empty-chart">
      {text}
    </p>
  );
}

function Timeseries({ base, granularity }: { base: Base; granularity: Granularity }) {
  const w = useWords(words);
  const [axis, setAxis] = useState<(typeof AXES)[number]>("published");
  const query = useQuery({
    queryKey: key(base, "timeseries", { axis, granularity }),
    queryFn: () => data(api.GET("/api/v1/stats/timeseries", { params: { query: { ...base, axis, granularity } } })),
  });
  return (
    <Card
      id="stats-timeseries"
      title={w.timeseriesTitle}
      query={query}
      wide
      controls={<Choice label={w.axis} value={axis} values={AXES} names={w.axes} onChange={setAxis} />}
    >
      {(d) => (
        <>
          {d.total === 0 && <EmptyNote text={w.noData} />}
          <TimeseriesChart d={d} w={w} axis={w.axes[axis] ?? axis} />
        </>
      )}
    </Card>
  );
}

const SERIES = ["count", "critical", "high", "kev", "poc"] as const;
const seriesNames = (w: W): Record<(typeof SERIES)[number], string> => ({
  count: w.seriesCount,
  critical: w.seriesCritical,
  high: w.seriesHigh,
  kev: w.seriesKev,
  poc: w.seriesPoc,
});

export function TimeseriesChart({ d, w, axis }: { d: Schemas["TimeseriesOut"]; w: W; axis: string }) {
  const names = seriesNames(w);
  const option = useMemo<ChartOption>(() => {
    const names = seriesNames(w);
    return {
      tooltip: { trigger: "axis" },
      legend: { top: 0 },
      grid: { left: 48, right: 16, top: 36, bottom: 28 },
      xAxis: { type: "category", data: d.points.map((p) => p.period) },
      yAxis: { type: "value", minInterval: 1 },
      series: SERIES.map((f) => ({ type: "line", name: names[f], data: d.points.map((p) => p[f]), showSymbol: d.points.length < 60 })),
    };
  }, [d, w]);
  const table: ChartTable = {
    columns: [w.period, ...SERIES.map((f) => names[f])],
    rows: d.points.map((p) => [p.period, ...SERIES.map((f) => p[f])]),
  };
  return <Chart caption={w.timeseriesCaption(axis, d.total)} option={option} table={table} />;
}

function Top({ base }: { base: Base }) {
  const w = useWords(words);
  const [dimension, setDimension] = useState<(typeof DIMENSIONS)[number]>("vendor");
  const [kevOnly, setKevOnly] = useState(false);
  const kevId = useId();
  const query = useQuery({
    queryKey: key(base, "top", { dimension, kevOnly }),
    queryFn: () => data(api.GET("/api/v1/stats/top", { params: { query: { ...base, dimension, kev_only: kevOnly, limit: 10 } } })),
  });
  return (
    <Card
      id="stats-top"
      title={w.topTitle}
      query={query}
      controls={
        <>
          <Choice label={w.dimension} value={dimension} values={DIMENSIONS} names={w.dimensions} onChange={setDimension} />
          <div className="field-inline">
            <input id={kevId} type="checkbox" checked={kevOnly} onChange={(e) => setKevOnly(e.target.checked)} />
            <label htmlFor={kevId}>{w.kevOnly}</label>
          </div>
        </>
      }
    >
      {(d) => (
        <>
          {d.items.length === 0 && (
            <EmptyNote text={d.grand_total === 0 ? w.topEmpty : w.topNoValue(w.dimensions[dimension] ?? dimension, d.grand_total)} />
          )}
          <TopChart d={d} w={w} />
        </>
      )}
    </Card>
  );
}

function TopChart({ d, w }: { d: Schemas["TopOut"]; w: W }) {
  const items = d.items;
  const option = useMemo<ChartOption>(
    () => ({
      tooltip: { trigger: "axis", axisPointer: { type: "shadow" } },
      grid: { left: 8, right: 24, top: 8, bottom: 24, containLabel: true },
      xAxis: { type: "value", minInterval: 1 },
      yAxis: {
        type: "category",
        inverse: true,
        data: items.map((i) => i.label ?? i.value),
        axisLabel: { width: 140, overflow: "truncate" },
      },
      series: [{ type: "bar", name: w.total, data: items.map((i) => i.total), barMaxWidth: 28 }],
    }),
    [items, w],
  );
  const table: ChartTable = { columns: [w.value, w.total, w.share], rows: items.map((i) => [i.label ?? i.value, i.total, i.share_pct]) };
  return <Chart caption={w.topCaption(d.label, items.length, d.grand_total)} option={option} table={table} />;
}

function Trend({ base, granularity }: { base: Base; granularity: Granularity }) {
  const w = useWords(words);
  const [dimension, setDimension] = useState<(typeof DIMENSIONS)[number]>("vendor");
  const query = useQuery({
    queryKey: key(base, "trend", { dimension, granularity }),
    queryFn: () => data(api.GET("/api/v1/stats/top/trend", { params: { query: { ...base, dimension, granularity, limit: 5 } } })),
  });
  return (
    <Card
      id="stats-trend"
      title={w.trendTitle}
      query={query}
      controls={<Choice label={w.dimension} value={dimension} values={DIMENSIONS} names={w.dimensions} onChange={setDimension} />}
    >
      {(d) => (
        <>
          {d.series.length === 0 && <EmptyNote text={w.noData} />}
          <TrendChart d={d} w={w} dimension={w.dimensions[dimension] ?? dimension} />
        </>
      )}
    </Card>
  );
}

function TrendChart({ d, w, dimension }: { d: Schemas["TopTrendOut"]; w: W; dimension: string }) {
  const option = useMemo<ChartOption>(
    () => ({
      tooltip: { trigger: "axis" },
      legend: { top: 0, type: "scroll" },
      grid: { left: 40, right: 16, top: 36, bottom: 28 },
      xAxis: { type: "category", data: d.points.map((p) => String(p.period)) },
      yAxis: { type: "value", minInterval: 1 },
      series: d.series.map((s) => ({ type: "line", name: s.label ?? s.value, data: d.points.map((p) => Number(p[s.value] ?? 0)) })),
    }),
    [d],
  );
  const table: ChartTable = {
    columns: [w.period, ...d.series.map((s) => s.label ?? s.value)],
    rows: d.points.map((p) => [String(p.period), ...d.series.map((s) => Number(p[s.value] ?? 0))]),
  };
  return <Chart caption={w.trendCaption(dimension, d.series.length)} option={option} table={table} />;
}

function Distribution({ base }: { base: Base }) {
  const w = useWords(words);
  const [metric, setMetric] = useState<(typeof METRICS)[number]>("cvss");
  const query = useQuery({
    queryKey: key(base, "distribution", { metric }),
    queryFn: () =>
      data(
        api.GET("/api/v1/stats/distribution", {
          params: { query: { ...base, metric, ...(metric === "epss" && { scale: "log" as const }) } },
        }),
      ),
  });
  return (
    <Card
      id="stats-distribution"
      title={w.distributionTitle}
      query={query}
      controls={<Choice label={w.metric} value={metric} values={METRICS} names={w.metrics} onChange={setMetric} />}
    >
      {(d) => (
        <>
          {d.grand_total === 0 && <EmptyNote text={w.noData} />}
          <DistributionChart
            d={d}
            w={w}
            pie={metric === "severity" || metric === "maturite_exploit"}
            metric={w.metrics[metric] ?? metric}
          />
        </>
      )}
    </Card>
  );
}

export function DistributionChart({ d, w, pie, metric }: { d: Schemas["DistributionOut"]; w: W; pie: boolean; metric: string }) {
  const option = useMemo<ChartOption>(
    () =>
      pie
        ? {
            tooltip: { trigger: "item" },
            legend: { top: 0, type: "scroll" },
            series: [
              {
                type: "pie",
                name: metric,
                radius: ["35%", "65%"],
                top: 24,
                // Empty slices left out of the drawing (the table lists every bucket).
                data: d.buckets.filter((b) => b.total > 0).map((b) => ({ name: w.buckets[b.bucket] ?? b.bucket, value: b.total })),
              },
            ],
          }
        : {
            tooltip: { trigger: "axis", axisPointer: { type: "shadow" } },
            grid: { left: 40, right: 16, top: 16, bottom: 48 },
            xAxis: { type: "category", data: d.buckets.map((b) => w.buckets[b.bucket] ?? b.bucket), axisLabel: { rotate: 30 } },
            yAxis: { type: "value", minInterval: 1 },
            series: [{ type: "bar", name: w.total, data: d.buckets.map((b) => b.total) }],
          },
    [d, pie, metric, w],
  );
  const table: ChartTable = {
    columns: [w.bucket, w.total, w.share],
    rows: d.buckets.map((b) => [w.buckets[b.bucket] ?? b.bucket, b.total, b.share_pct]),
  };
  return <Chart caption={w.distributionCaption(metric, d.grand_total)} option={option} table={table} />;
}

function Delays({ base, granularity }: { base: Base; granularity: Granularity }) {
  const w = useWords(words);
  const { lang } = useI18n();
  const [chosen, setMetric] = useState<DelayMetric>("publication_to_kev");
  const metrics: readonly DelayMetric[] = base.project_id ? [...DELAYS, ...PROJECT_DELAYS] : DELAYS;
  // Back to the corpus: the project's delays are not the corpus's.
  const metric = metrics.includes(chosen) ? chosen : "publication_to_kev";
  const query = useQuery({
    queryKey: key(base, "delays", { metric, granularity }),
    queryFn: () => data(api.GET("/api/v1/stats/delays", { params: { query: { ...base, metric, granularity } } })),
  });
  const day = (v: number | null | undefined) => (v === null || v === undefined ? w.none : nf(lang).format(v));
  return (
    <Card
      id="stats-delays"
      title={w.delaysTitle}
      query={query}
      wide
      controls={<Choice label={w.metric} value={metric} values={metrics} names={w.delayMetrics} onChange={setMetric} />}
    >
      {(d) => (
        <>
          <p className="stats-overall">{w.delaysOverall(d.overall?.count ?? 0, day(d.overall?.median), day(d.overall?.p90))}</p>
          {!d.overall?.count && <EmptyNote text={w.noDelay} />}
          <DelaysChart d={d} w={w} metric={w.delayMetrics[metric] ?? metric} />
        </>
      )}
    </Card>
  );
}

function DelaysChart({ d, w, metric }: { d: Schemas["DelaysOut"]; w: W; metric: string }) {
  const points = d.points ?? [];
  const option = useMemo<ChartOption>(
    () => ({
      tooltip: { trigger: "axis" },
      legend: { top: 0 },
      grid: { left: 48, right: 16, top: 36, bottom: 28 },
      xAxis: { type: "category", data: points.map((p) => p.period) },
      yAxis: { type: "value", name: "j" },
      series: [
        { type: "bar", name: w.median, data: points.map((p) => p.median), barMaxWidth: 40 },
        { type: "line", name: w.mean, data: points.map((p) => p.mean) },
        { type: "line", name: w.p90, data: points.map((p) => p.p90) },
      ],
    }),
    [points, w],
  );
  const table: ChartTable = {
    columns: [w.period, w.count, w.median, w.mean, w.p90],
    rows: points.map((p) => [p.period, p.count, p.median ?? w.none, p.mean ?? w.none, p.p90 ?? w.none]),
  };
  return <Chart caption={w.delaysCaption(metric)} option={option} table={table} />;
}
