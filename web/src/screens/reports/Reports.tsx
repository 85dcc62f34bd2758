import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useId, useState } from "react";
import { api, data } from "../../api/client";
import type { components } from "../../api/schema";
import { formatDate } from "../../format";
import { useI18n, useWords } from "../../i18n/i18n";
import { projectRoute } from "../../routes";
import { FindZone } from "./FindZone";
import { words } from "./words";
import { Pager } from "../../ui/Pager";

type Report = components["schemas"]["ReportOut"];
type ReportType = components["schemas"]["ReportIn"]["report_type"];
type Settings = components["schemas"]["ReportSettingsOut"];

const TYPES: ReportType[] = ["rapport_projet", "conformite_kev", "exceptions", "inventaire"];
const PAGE_SIZE = 20;
const PROJECT = "/api/v1/organizations/{org_id}/projects/{project_id}";

/** `/p/$projectId/reports`: the project's evidence reports — list, generate, download, freeze, find again, schedule. */
export function Reports() {
  const { org, project } = projectRoute.useRouteContext();
  if (!org || !project) return null;
  // Generating, freezing and scheduling need reports-write: admin or owner (the server answers 403 anyway).
  return <ReportsOf orgId={org.id} projectId={project.id} canWrite={org.role === "admin" || org.role === "owner"} />;
}

function ReportsOf({ orgId, projectId, canWrite }: { orgId: string; projectId: string; canWrite: boolean }) {
  const w = useWords(words);
  const path = { org_id: orgId, project_id: projectId };
  return (
    <section aria-labelledby="reports-title" className="screen">
      <h1 id="reports-title">{w.title}</h1>
      <p className="muted">{w.intro}</p>
      {!canWrite && <p className="notice">{w.readOnly}</p>}
      <div className="reports-top">
        {canWrite && <Generate path={path} />}
        <FindZone orgId={orgId} />
      </div>
      <ReportList path={path} canWrite={canWrite} />
      <ScheduleSettings path={path} canWrite={canWrite} />
    </section>
  );
}

interface Path {
  org_id: string;
  project_id: string;
}

function Generate({ path }: { path: Path }) {
  const w = useWords(words);
  const { lang } = useI18n();
  const id = useId();
  const queryClient = useQueryClient();
  const [type, setType] = useState<ReportType>("rapport_projet");
  const [from, setFrom] = useState("");
  const [to, setTo] = useState("");
  // A report is a document in the language asked; the user's own by default.
  const [language, setLanguage] = useState<"fr" | "en">(lang);
  const create = useMutation({
    mutationFn: () =>
      data(
        api.POST(`${PROJECT}/reports`, {
          params: { path },
          body: {
            report_type: type,
            language,
            ...(type === "rapport_projet" && from && { from }),
            ...(type === "rapport_projet" && to && { to }),
          },
        }),
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["reports", path.project_id] }),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  return (
    <form className="reports-generate" onSubmit={submit} aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{w.generateTitle}</h2>
      <div className="field">
        <label htmlFor={`${id}-type`}>{w.type}</label>
        <select id={`${id}-type`} value={type} onChange={(e) => setType(e.target.value as ReportType)}>
          {TYPES.map((t) => (
            <option key={t} value={t}>
              {w.types[t]}
            </option>
          ))}
        </select>
      </div>
      {type === "rapport_projet" && (
        <fieldset className="reports-period">
          <legend>{w.periodHint}</legend>
          <div className="field">
            <label htmlFor={`${id}-from`}>{w.from}</label>
            <input id={`${id}-from`} type="date" value={from} onChange={(e) => setFrom(e.target.value)} />
          </div>
          <div className="field">
            <label htmlFor={`${id}-to`}>{w.to}</label>
            <input id={`${id}-to`} type="date" value={to} onChange={(e) => setTo(e.target.value)} />
          </div>
        </fieldset>
      )}
      <div className="field">
        <label htmlFor={`${id}-lang`}>{w.language}</label>
        <select id={`${id}-lang`} value={language} onChange={(e) => setLanguage(e.target.value as "fr" | "en")}>
          <option value="fr">{w.languages.fr}</option>
          <option value="en">{w.languages.en}</option>
        </select>
      </div>
      <button type="submit" className="button-primary" disabled={create.isPending}>
        {create.isPending ? w.generating : w.generate}
      </button>
      <div aria-live="polite">
        {create.isSuccess && <p role="status">{w.generated(create.data.titre)}</p>}
        {create.isError && (
          <p role="alert" className="error">
            {create.error.message}
          </p>
        )}
      </div>
    </form>
  );
}

const STATE_TONE: Record<string, string> = { a_jour: "ok", perimee: "warn", en_cours: "ok", figee: "idle", erreur: "bad" };

/** A download link: a plain GET the browser makes with the session cookie (an attachment). */
export function downloadHref(path: Path, reportId: string, format: string): string {
  return `/api/v1/organizations/${path.org_id}/projects/${path.project_id}/reports/${reportId}/download?format=${format}`;
}

function ReportList({ path, canWrite }: { path: Path; canWrite: boolean }) {
  const w = useWords(words);
  const { lang } = useI18n();
  const [page, setPage] = useState(1);
  const queryClient = useQueryClient();
  const list = useQuery({
    queryKey: ["reports", path.project_id, { page }],
    queryFn: () => data(api.GET(`${PROJECT}/reports`, { params: { path, query: { page, page_size: PAGE_SIZE } } })),
  });
  const freeze = useMutation({
    mutationFn: (report: Report) =>
      data(api.POST(`${PROJECT}/reports/{report_id}/freeze`, { params: { path: { ...path, report_id: report.id } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["reports", path.project_id] }),
  });
  const pages = list.data ? Math.max(1, Math.ceil(list.data.total / PAGE_SIZE)) : 1;
  return (
    <section aria-labelledby="reports-list-title" className="reports-list">
      <h2 id="reports-list-title">{w.listTitle}</h2>
      {list.isPending && <p role="status">{w.loading}</p>}
      {list.isError && (
        <div role="alert" className="error">
          {w.loadError} {list.error.message}{" "}
          <button type="button" className="button-secondary" onClick={() => void list.refetch()}>
            {w.retry}
          </button>
        </div>
      )}
      {freeze.isError && (
        <p role="alert" className="error">
          {freeze.error.message}
        </p>
      )}
      {list.data && list.data.items.length === 0 && <p>{w.empty}</p>}
      {list.data && list.data.items.length > 0 && (
        <>
          <div className="table-wrap">
            <table>
              <caption>{w.listCaption}</caption>
              <thead>
                <tr>
                  <th scope="col">{w.colReport}</th>
                  <th scope="col" className="num">
                    {w.colVersion}
                  </th>
                  <th scope="col">{w.colState}</th>
                  <th scope="col">{w.colGenerated}</th>
                  <th scope="col">{w.colDownload}</th>
                  {canWrite && <th scope="col">{w.colActions}</th>}
                </tr>
              </thead>
              <tbody>
                {list.data.items.map((r) => (
                  <tr key={r.id}>
                    <th scope="row">
                      <span className="source" lang={r.language}>
                        {r.titre}
                      </span>
                      <span className="sub">
                        {w.types[r.report_type] ?? r.report_type}
                        {r.fige_le && ` · ${w.frozenOn(formatDate(r.fige_le, lang))}`}
                      </span>
                    </th>
                    <td className="num">{r.version}</td>
                    <td>
                      <span className={`badge badge-${STATE_TONE[r.synchro_etat ?? ""] ?? "idle"}`} title={r.synchro_erreur ?? undefined}>
                        {r.synchro_etat ? (w.states[r.synchro_etat] ?? r.synchro_etat) : w.none}
                      </span>
                    </td>
                    <td>{r.genere_le ? formatDate(r.genere_le, lang) : w.none}</td>
                    <td>
                      <span className="downloads">
                        {r.formats.map((f) => (
                          <a key={f} href={downloadHref(path, r.id, f)} download aria-label={w.download(f, r.titre)}>
                            {f.toUpperCase()}
                          </a>
                        ))}
                      </span>
                    </td>
                    {canWrite && (
                      <td>
                        {!r.synchro_figee && (
                          <button
                            type="button"
                            className="button-secondary"
                            aria-label={w.freezeLabel(r.titre)}
                            disabled={freeze.isPending}
                            onClick={() => freeze.mutate(r)}
                          >
                            {w.freeze}
                          </button>
                        )}
                      </td>
                    )}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {pages > 1 && <Pager page={page} pages={pages} onPage={setPage} label={w.listTitle} status={w.page(page, pages)} />}
        </>
      )}
    </section>
  );
}

function ScheduleSettings({ path, canWrite }: { path: Path; canWrite: boolean }) {
  const w = useWords(words);
  const settings = useQuery({
    queryKey: ["report-settings", path.project_id],
    queryFn: () => data(api.GET(`${PROJECT}/report-settings`, { params: { path } })),
  });
  return (
    <section aria-labelledby="reports-settings-title" className="reports-settings">
      <h2 id="reports-settings-title">{w.settingsTitle}</h2>
      {settings.isPending && <p role="status">{w.loading}</p>}
      {settings.isError && (
        <p role="alert" className="error">
          {settings.error.message}
        </p>
      )}
      {settings.data && <SettingsForm key={JSON.stringify(settings.data)} path={path} initial={settings.data} canWrite={canWrite} />}
    </section>
  );
}

function SettingsForm({ path, initial, canWrite }: { path: Path; initial: Settings; canWrite: boolean }) {
  const w = useWords(words);
  const id = useId();
  const queryClient = useQueryClient();
  const [s, setS] = useState(initial);
  const save = useMutation({
    mutationFn: () =>
      data(
        api.PATCH(`${PROJECT}/report-settings`, {
          params: { path },
          body: { enabled: s.enabled, report_type: s.report_type, language: s.language, day_of_month: s.day_of_month },
        }),
      ),
    onSuccess: (next) => queryClient.setQueryData(["report-settings", path.project_id], next),
  });
  return (
    <form
      className="reports-settings-form"
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate();
      }}
    >
      <fieldset disabled={!canWrite}>
        <div className="field-inline">
          <input id={`${id}-on`} type="checkbox" checked={s.enabled} onChange={(e) => setS({ ...s, enabled: e.target.checked })} />
          <label htmlFor={`${id}-on`}>{w.settingsEnabled}</label>
        </div>
        <div className="reports-settings-fields">
          <div className="field">
            <label htmlFor={`${id}-type`}>{w.type}</label>
            <select id={`${id}-type`} value={s.report_type} onChange={(e) => setS({ ...s, report_type: e.target.value as ReportType })}>
              {TYPES.map((t) => (
                <option key={t} value={t}>
                  {w.types[t]}
                </option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor={`${id}-lang`}>{w.language}</label>
            <select id={`${id}-lang`} value={s.language} onChange={(e) => setS({ ...s, language: e.target.value as "fr" | "en" })}>
              <option value="fr">{w.languages.fr}</option>
              <option value="en">{w.languages.en}</option>
            </select>
          </div>
          <div className="field">
            <label htmlFor={`${id}-day`}>{w.settingsDay}</label>
            <input
              id={`${id}-day`}
              type="number"
              min={1}
              max={28}
              required
              value={s.day_of_month}
              onChange={(e) => setS({ ...s, day_of_month: Number(e.target.value) })}
            />
          </div>
        </div>
        {initial.last_period_from && <p className="muted">{w.settingsLast(initial.last_period_from)}</p>}
        {canWrite && (
          <button type="submit" className="button-primary" disabled={save.isPending}>
            {w.save}
          </button>
        )}
      </fieldset>
      <div aria-live="polite">
        {save.isSuccess && <p role="status">{w.saved}</p>}
        {save.isError && (
          <p role="alert" className="error">
            {save.error.message}
          </p>
        )}
      </div>
    </form>
  );
}
