import { useMutation, useQueries, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useId, useState } from "react";
import { ApiError, api, data } from "../../api/client";
import { fieldMessages } from "../../api/pydantic";
import type { components } from "../../api/schema";
import { formatDate } from "../../format";
import { useI18n, useWords } from "../../i18n/i18n";
import { errorText, useProject } from "../stacks/project";
import { stacksQuery } from "../stacks/queries";
import { refusedAddress } from "./address";
import { urlQuery, urlsQuery, watchTechnology } from "./queries";
import { certState, statusTone } from "./status";
import { words } from "./words";
import { Pager } from "../../ui/Pager";

type Url = components["schemas"]["MonitoredUrlOut"];
type Tech = components["schemas"]["DetectedTechnologyOut"];

const PAGE_SIZE = 20;

/** `/p/$projectId/urls`: the project's monitored URLs (status, certificate, technologies); admins add, edit, scan, delete. */
export function Urls() {
  const { t } = useI18n();
  const w = useWords(words);
  const { path, canManage } = useProject();
  const [page, setPage] = useState(1);
  const [editing, setEditing] = useState<Url | null>(null);
  const [stackId, setStackId] = useState("");
  const [said, setSaid] = useState("");
  const urls = useQuery({
    ...urlsQuery(path, page, PAGE_SIZE),
    placeholderData: (prev) => prev,
    // A URL waiting for its scan shows the result as soon as it is recorded.
    refetchInterval: (q) => (q.state.data?.items.some((u) => u.last_status === "pending") ? 3_000 : 60_000),
  });
  const items = urls.data?.items ?? [];
  const details = useQueries({
    queries: items.map((u) => ({ ...urlQuery(path, u.id), enabled: !!u.last_scanned_at, placeholderData: (prev: unknown) => prev })),
  });
  const stacks = useQuery({ ...stacksQuery(path), enabled: canManage });
  const target = stackId || stacks.data?.[0]?.id || "";
  const pages = Math.max(1, Math.ceil((urls.data?.total ?? 0) / PAGE_SIZE));
  const privateAllowed = urls.data?.private_targets_allowed === true;
  return (
    <section aria-labelledby="urls-title" className="screen">
      <h1 id="urls-title">{w.title}</h1>
      <p className="muted">{w.intro}</p>
      {!canManage && <p className="notice">{w.readOnly}</p>}
      {canManage && stacks.data && (
        <div className="form-row">
          {stacks.data.length ? (
            <div className="field-inline">
              <label htmlFor="urls-stack">{w.targetStack}</label>
              <select id="urls-stack" value={target} onChange={(e) => setStackId(e.target.value)}>
                {stacks.data.map((s) => (
                  <option key={s.id} value={s.id}>
                    {s.name}
                  </option>
                ))}
              </select>
            </div>
          ) : (
            <p className="muted">{w.noStack}</p>
          )}
        </div>
      )}
      <p role="status" className="status-line">
        {said}
      </p>
      {urls.isPending && <p role="status">{t.loading}</p>}
      {urls.isError && (
        <div role="alert" className="error">
          {t.loadError}{" "}
          <button type="button" className="button-secondary" onClick={() => void urls.refetch()}>
            {t.retry}
          </button>
        </div>
      )}
      {urls.data &&
        (items.length === 0 ? (
          <p>{w.none}</p>
        ) : (
          <div className="table-wrap">
            <table>
              <caption>{w.caption}</caption>
              <thead>
                <tr>
                  <th scope="col">{w.colUrl}</th>
                  <th scope="col">{w.colStatus}</th>
                  <th scope="col">{w.colCert}</th>
                  <th scope="col">{w.colScan}</th>
                  <th scope="col">{w.colTech}</th>
                  {canManage && <th scope="col">{w.colActions}</th>}
                </tr>
              </thead>
              <tbody>
                {items.map((u, i) => (
                  <UrlRow
                    key={u.id}
                    url={u}
                    technologies={details[i]?.data?.technologies}
                    stackId={target}
                    onEdit={() => setEditing(u)}
                    say={setSaid}
                  />
                ))}
              </tbody>
            </table>
          </div>
        ))}
      {pages > 1 && <Pager page={page} pages={pages} onPage={setPage} label={w.pager} status={w.page(page, pages)} />}
      {canManage &&
        (editing ? (
          <UrlForm key={editing.id} url={editing} privateAllowed={privateAllowed} done={() => setEditing(null)} />
        ) : (
          <UrlForm key="new" privateAllowed={privateAllowed} done={() => {}} />
        ))}
    </section>
  );
}

function UrlRow(p: { url: Url; technologies: Tech[] | undefined; stackId: string; onEdit(): void; say(text: string): void }) {
  const w = useWords(words);
  const { lang } = useI18n();
  const { path, canManage } = useProject();
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const u = p.url;
  const up = { ...path, url_id: u.id };
  const invalidate = () => queryClient.invalidateQueries({ queryKey: ["monitored-urls", path.project_id] });
  const scan = useMutation({
    mutationFn: () =>
      data(api.POST("/api/v1/organizations/{org_id}/projects/{project_id}/monitored-urls/{url_id}/scan", { params: { path: up } })),
    onSuccess: () => {
      p.say(w.scanQueued(u.url));
      return invalidate();
    },
  });
  const remove = useMutation({
    mutationFn: () =>
      data(api.DELETE("/api/v1/organizations/{org_id}/projects/{project_id}/monitored-urls/{url_id}", { params: { path: up } })),
    onSuccess: () => {
      p.say(w.deleted(u.url));
      return Promise.all([invalidate(), queryClient.invalidateQueries({ queryKey: ["stats", path.project_id] })]);
    },
  });
  const watch = useMutation({
    mutationFn: (name: string) => watchTechnology(path, u.id, name, p.stackId),
    onSuccess: (item) => {
      p.say(w.added(item.value, item.alertes_creees));
      return Promise.all([
        queryClient.invalidateQueries({ queryKey: ["stacks", path.project_id] }),
        queryClient.invalidateQueries({ queryKey: ["alerts", path.project_id] }),
      ]);
    },
  });
  const cert = certState(u, new Date());
  const error = scan.error ?? remove.error ?? watch.error;
  return (
    <tr>
      <th scope="row">
        <span className="source mono">{u.url}</span>
        {u.label && <span className="sub">{u.label}</span>}
      </th>
      <td>
        <span className={`badge badge-${statusTone(u.last_status)}`}>{w.statuses[u.last_status] ?? u.last_status}</span>
        {u.last_http_status !== null && <span className="sub">HTTP {u.last_http_status}</span>}
        {!u.is_enabled && <span className="sub">{w.disabled}</span>}
        {u.last_status === "blocked" ? (
          <span className="sub error-cell">{w.blockedWhy}</span>
        ) : (
          // The scan's detail is the server's (French, README « Langue des écrans »): the status above
          // is the application's words; the detail is shown as it is to French readers only.
          u.last_error && lang === "fr" && <span className="sub error-cell">{u.last_error}</span>
        )}
      </td>
      <td>
        {cert ? (
          <>
            <span className={`badge badge-${cert.tone}`}>{w.certDays(cert.days)}</span>
            {u.cert_valid === false && <span className="sub">{u.cert_error ?? w.certInvalid}</span>}
            <span className="sub">
              {w.certUntil(formatDate(u.cert_expires_at!, lang))}
              {u.cert_issuer && ` · ${u.cert_issuer}`}
            </span>
          </>
        ) : (
          w.certNone
        )}
      </td>
      <td>{u.last_scanned_at ? formatDate(u.last_scanned_at, lang) : w.never}</td>
      <td>
        {!p.technologies?.length ? (
          <span className="muted">{w.noTech}</span>
        ) : (
          <ul className="tech-list">
            {p.technologies.map((tech) => {
              const watchable = !!tech.cpe && !!tech.version;
              return (
                <li key={tech.name}>
                  <span>
                    {tech.name}
                    {tech.version && ` ${tech.version}`}
                  </span>
                  {canManage && (
                    <button
                      type="button"
                      className="button-secondary button-small"
                      aria-label={w.techAddLabel(`${tech.name}${tech.version ? ` ${tech.version}` : ""}`)}
                      title={watchable ? undefined : w.techWhyNot}
                      disabled={!watchable || !p.stackId || watch.isPending}
                      onClick={() => watch.mutate(tech.name)}
                    >
                      {w.techAdd}
                    </button>
                  )}
                </li>
              );
            })}
          </ul>
        )}
      </td>
      {canManage && (
        <td>
          <div className="row-actions">
            <button
              type="button"
              className="button-secondary"
              aria-label={w.scanOf(u.url)}
              disabled={scan.isPending}
              onClick={() => scan.mutate()}
            >
              {w.scan}
            </button>
            <button type="button" className="button-secondary" aria-label={w.editOf(u.url)} onClick={p.onEdit}>
              {w.edit}
            </button>
            {confirming ? (
              <>
                <button
                  type="button"
                  className="button-danger"
                  aria-label={w.confirmDelOf(u.url)}
                  disabled={remove.isPending}
                  onClick={() => remove.mutate()}
                >
                  {w.confirmDel}
                </button>
                <button type="button" className="button-secondary" onClick={() => setConfirming(false)}>
                  {w.cancel}
                </button>
              </>
            ) : (
              <button type="button" className="button-secondary" aria-label={w.delOf(u.url)} onClick={() => setConfirming(true)}>
                {w.del}
              </button>
            )}
          </div>
          {error && (
            <p role="alert" className="error">
              {errorText(error, w.saveError)}
            </p>
          )}
        </td>
      )}
    </tr>
  );
}

/** Adds a URL, or edits `url`: address, label, scan interval, scheduled scans on or off. */
function UrlForm({ url, privateAllowed, done }: { url?: Url; privateAllowed: boolean; done(): void }) {
  const w = useWords(words);
  const { t, lang } = useI18n();
  const id = useId();
  const { path } = useProject();
  const queryClient = useQueryClient();
  const [address, setAddress] = useState(url?.url ?? "");
  const [label, setLabel] = useState(url?.label ?? "");
  const [interval, setInterval] = useState(String(url?.scan_interval_hours ?? 24));
  const [enabled, setEnabled] = useState(url?.is_enabled ?? true);
  const save = useMutation({
    mutationFn: () => {
      const body = { url: address.trim(), label: label.trim() || null, scan_interval_hours: Number(interval), is_enabled: enabled };
      return url
        ? data(
            api.PATCH("/api/v1/organizations/{org_id}/projects/{project_id}/monitored-urls/{url_id}", {
              params: { path: { ...path, url_id: url.id } },
              body,
            }),
          )
        : data(api.POST("/api/v1/organizations/{org_id}/projects/{project_id}/monitored-urls", { params: { path }, body }));
    },
    onSuccess: async () => {
      if (!url) {
        setAddress("");
        setLabel("");
      }
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: ["monitored-urls", path.project_id] }),
        queryClient.invalidateQueries({ queryKey: ["stats", path.project_id] }),
      ]);
      done();
    },
  });
  // Refused when typed: a literal address the server's scans may not reach (its guard, mirrored).
  const refused = privateAllowed ? null : refusedAddress(address);
  const [tried, setTried] = useState(false);
  const fields = save.error instanceof ApiError ? fieldMessages(save.error.detail, lang) : {};
  const urlError = refused ? w.refused[refused] : tried && !address.trim() ? t.required : fields.url;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setTried(true);
    if (refused || !address.trim()) return;
    save.mutate();
  };
  return (
    <form className="panel" onSubmit={submit} aria-labelledby={`${id}-title`} noValidate>
      <h2 id={`${id}-title`}>{url ? w.editTitle(url.url) : w.addTitle}</h2>
      <div className="form-grid">
        <div className="field field-wide">
          <label htmlFor={`${id}-url`}>{w.url}</label>
          <input
            id={`${id}-url`}
            type="url"
            className="mono"
            required
            maxLength={2048}
            placeholder="https://"
            value={address}
            aria-invalid={urlError ? true : undefined}
            aria-describedby={urlError ? `${id}-url-err` : undefined}
            onChange={(e) => setAddress(e.target.value)}
          />
          {urlError && (
            <span id={`${id}-url-err`} className="field-error">
              {urlError}
            </span>
          )}
        </div>
        <div className="field">
          <label htmlFor={`${id}-label`}>{w.label}</label>
          <input id={`${id}-label`} maxLength={200} value={label} onChange={(e) => setLabel(e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor={`${id}-interval`}>{w.interval}</label>
          <input
            id={`${id}-interval`}
            type="number"
            min={1}
            max={720}
            required
            value={interval}
            onChange={(e) => setInterval(e.target.value)}
          />
        </div>
      </div>
      <div className="checks">
        <label>
          <input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} /> {w.enabled}
        </label>
      </div>
      <div className="form-row">
        <button type="submit" className="button-primary" disabled={save.isPending}>
          {url ? w.save : w.add}
        </button>
        {url && (
          <button type="button" className="button-secondary" onClick={done}>
            {w.cancel}
          </button>
        )}
      </div>
      {save.isError && !fields.url && (
        <p role="alert" className="error">
          {errorText(save.error, w.saveError)}
        </p>
      )}
    </form>
  );
}
