import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Link, useParams } from "@tanstack/react-router";
import { type FormEvent, useId, useState } from "react";
import { ApiError, api, data } from "../../api/client";
import { requiredBlank } from "../../api/pydantic";
import type { components } from "../../api/schema";
import { formatDate } from "../../format";
import { useI18n, useWords } from "../../i18n/i18n";
import { projectRoute } from "../../routes";
import {
  type CaseStatus,
  Countdown,
  canTriage,
  Failed,
  ProjectTagManager,
  type Refused,
  SeverityBadge,
  send,
  StatusBadge,
  useProjectTags,
} from "./common";
import { JustificationSelect } from "../vex/JustificationSelect";
import { type Justification, justificationLabel, justificationWords } from "../vex/justifications";
import { addDays, parisToday } from "./paris";
import { words } from "./words";

type Detail = components["schemas"]["CaseDetailOut"];
type ExceptionIn = components["schemas"]["CaseExceptionIn"];
type Ids = { orgId: string; projectId: string; cveId: string };

/** /p/$projectId/cases/$cveId: the case, its status changes, exception, tags and history. */
export function CaseDetail() {
  const { org, project } = projectRoute.useRouteContext();
  const { cveId } = useParams({ strict: false }) as { cveId: string };
  if (!org || !project) return null;
  return <CaseDetailOf ids={{ orgId: org.id, projectId: project.id, cveId: cveId.toUpperCase() }} writable={canTriage(org.role)} />;
}

function caseQueryKey(ids: Ids) {
  return ["cases", ids.projectId, "detail", ids.cveId];
}

function path(ids: Ids) {
  return { org_id: ids.orgId, project_id: ids.projectId, cve_id: ids.cveId };
}

/** After a write: this case and every list of the project's cases (board, table). */
function useInvalidate(ids: Ids) {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: ["cases", ids.projectId] });
}

function CaseDetailOf({ ids, writable }: { ids: Ids; writable: boolean }) {
  const w = useWords(words);
  const said = useWords(justificationWords);
  const { lang } = useI18n();
  const c = useQuery({
    queryKey: caseQueryKey(ids),
    queryFn: () => data(api.GET("/api/v1/organizations/{org_id}/projects/{project_id}/cases/{cve_id}", { params: { path: path(ids) } })),
  });
  return (
    <section aria-labelledby="case-title" className="screen">
      <p>
        <Link to="/p/$projectId/cases" params={{ projectId: ids.projectId }}>
          ← {w.backToCases}
        </Link>
      </p>
      <h1 id="case-title">{w.caseTitle(ids.cveId)}</h1>
      {c.isPending && <p role="status">{w.loading}</p>}
      {c.isError &&
        (c.error instanceof ApiError && (c.error.status === 404 || c.error.status === 422) ? (
          <p className="notice">{w.notFound}</p>
        ) : (
          <Failed onRetry={() => void c.refetch()} />
        ))}
      {c.data && (
        <>
          {!writable && <p className="notice">{w.readOnly}</p>}
          <dl className="facts case-facts">
            <dt>{w.status}</dt>
            <dd>
              <StatusBadge status={c.data.status} />
            </dd>
            <dt>{w.severity}</dt>
            <dd>
              <SeverityBadge severity={c.data.severity} />{" "}
              {c.data.severity_manual && <span className="sub-inline">({w.severityManual})</span>}
            </dd>
            {c.data.justification_vex && (
              <>
                <dt>{w.justificationVex}</dt>
                <dd>
                  {said[c.data.justification_vex].label}
                  <span className="sub">{said[c.data.justification_vex].explain}</span>
                </dd>
              </>
            )}
            <dt>{w.created}</dt>
            <dd>{formatDate(c.data.created_at, lang)}</dd>
            <dt>{w.updated}</dt>
            <dd>{formatDate(c.data.updated_at, lang)}</dd>
            <dt>{w.notes}</dt>
            <dd className="notes">{c.data.notes ?? <span className="muted">{w.noNotes}</span>}</dd>
          </dl>
          <div className="case-panels">
            <ExceptionPanel ids={ids} c={c.data} writable={writable} />
            <StatusPanel ids={ids} c={c.data} writable={writable} />
            <TagsPanel ids={ids} c={c.data} writable={writable} />
          </div>
          <History c={c.data} />
        </>
      )}
    </section>
  );
}

/**
 * The statuses the server allows from this one (`transitions`), each a button; « Non concerné » asks
 * first for the VEX justification (optional). A case non_concerne may change its justification. A
 * 409 shows the server's message.
 */
function StatusPanel({ ids, c, writable }: { ids: Ids; c: Detail; writable: boolean }) {
  const w = useWords(words);
  const id = useId();
  const invalidate = useInvalidate(ids);
  const [comment, setComment] = useState("");
  const [closing, setClosing] = useState(false);
  const [justification, setJustification] = useState<Justification | "">("");
  const put = useMutation({
    mutationFn: (body: { status?: CaseStatus; justification_vex?: Justification | null }) =>
      send(
        api.PUT("/api/v1/organizations/{org_id}/projects/{project_id}/cases/{cve_id}", {
          params: { path: path(ids) },
          body: { ...body, comment: comment.trim() || null },
        }),
      ),
    onSuccess: async () => {
      setComment("");
      setClosing(false);
      setJustification("");
      await invalidate();
    },
  });
  const move = (s: CaseStatus) => {
    if (s === "non_concerne") setClosing(true);
    else put.mutate({ status: s });
  };
  return (
    <section className="panel" aria-labelledby={`${id}-h`}>
      <h2 id={`${id}-h`}>{w.changeStatus}</h2>
      {c.transitions.length === 0 ? (
        <p className="muted">{w.noTransition}</p>
      ) : (
        <>
          <p className="muted small">{w.transitionsIntro}</p>
          {writable && (
            <div className="field">
              <label htmlFor={`${id}-c`}>{w.comment}</label>
              <textarea id={`${id}-c`} rows={2} value={comment} onChange={(e) => setComment(e.target.value)} />
            </div>
          )}
          {closing ? (
            <fieldset className="vex-close">
              <legend>{w.moveTo(w.statuses.non_concerne ?? "non_concerne")}</legend>
              <p className="muted small">{w.nonConcerneIntro}</p>
              <JustificationSelect
                id={`${id}-j`}
                label={w.justificationFor}
                none={w.noJustification}
                value={justification}
                onChange={setJustification}
                explainAll
              />
              <div className="button-row">
                <button
                  type="button"
                  className="button-primary"
                  disabled={put.isPending}
                  onClick={() => put.mutate({ status: "non_concerne", ...(justification && { justification_vex: justification }) })}
                >
                  {w.confirmMove(w.statuses.non_concerne ?? "non_concerne")}
                </button>
                <button type="button" className="button-secondary" onClick={() => setClosing(false)}>
                  {w.cancel}
                </button>
              </div>
            </fieldset>
          ) : (
            <div className="button-row">
              {c.transitions.map((s) => (
                <button key={s} type="button" className="button-secondary" disabled={!writable || put.isPending} onClick={() => move(s)}>
                  {w.moveTo(w.statuses[s] ?? s)}
                </button>
              ))}
            </div>
          )}
        </>
      )}
      {c.status === "non_concerne" && writable && <JustificationForm ids={ids} c={c} />}
      {put.isError && (
        <p role="alert" className="error">
          {put.error.message}
        </p>
      )}
    </section>
  );
}

/** A case non_concerne: its VEX justification changed (or removed), a history row each time. */
function JustificationForm({ ids, c }: { ids: Ids; c: Detail }) {
  const w = useWords(words);
  const id = useId();
  const invalidate = useInvalidate(ids);
  const [value, setValue] = useState<Justification | "">(c.justification_vex ?? "");
  const save = useMutation({
    mutationFn: () =>
      send(
        api.PUT("/api/v1/organizations/{org_id}/projects/{project_id}/cases/{cve_id}", {
          params: { path: path(ids) },
          body: { justification_vex: value || null },
        }),
      ),
    onSuccess: invalidate,
  });
  return (
    <div className="vex-close">
      <JustificationSelect
        id={`${id}-j`}
        label={w.justificationVex}
        none={w.noJustification}
        value={value}
        onChange={setValue}
        explainAll
      />
      <button
        type="button"
        className="button-secondary"
        disabled={save.isPending || value === (c.justification_vex ?? "")}
        onClick={() => save.mutate()}
      >
        {w.changeJustification}
      </button>
      {save.isSuccess && (
        <p role="status" className="status-line">
          {w.justificationSaved}
        </p>
      )}
      {save.isError && (
        <p role="alert" className="error">
          {save.error.message}
        </p>
      )}
    </div>
  );
}

/** The case's own exception (or the register entry covering it): countdown in Paris days, set, change, remove. */
function ExceptionPanel({ ids, c, writable }: { ids: Ids; c: Detail; writable: boolean }) {
  const w = useWords(words);
  const { lang } = useI18n();
  const id = useId();
  const invalidate = useInvalidate(ids);
  const [editing, setEditing] = useState(false);
  const remove = useMutation({
    mutationFn: () =>
      send(
        api.DELETE("/api/v1/organizations/{org_id}/projects/{project_id}/cases/{cve_id}/exception", {
          params: { path: path(ids) },
          body: {},
        }),
      ),
    onSuccess: invalidate,
  });
  const closed = c.status === "corrige" || c.status === "non_concerne";
  const e = c.exception;
  return (
    <section className="panel" aria-labelledby={`${id}-h`}>
      <h2 id={`${id}-h`}>{w.exception}</h2>
      {e && (
        <dl className="facts">
          <dt>{w.nature}</dt>
          <dd>{w.natures[e.nature]}</dd>
          {e.measure && (
            <>
              <dt>{w.measure}</dt>
              <dd>{e.measure}</dd>
            </>
          )}
          <dt>{w.justification}</dt>
          <dd>{e.justification}</dd>
          <dt>{w.expiresOnLabel}</dt>
          <dd>
            <Countdown expiresOn={e.expires_on} long />
          </dd>
          {e.set_at && (
            <>
              <dt>{w.setAt}</dt>
              <dd>{formatDate(e.set_at, lang)}</dd>
            </>
          )}
        </dl>
      )}
      {c.risque && (
        <dl className="facts">
          <dt>{w.coveredBy}</dt>
          <dd>
            <Link to="/risks/$riskId" params={{ riskId: c.risque.id }}>
              {c.risque.title}
            </Link>
          </dd>
          <dt>{w.expiresOnLabel}</dt>
          <dd>
            <Countdown expiresOn={c.risque.expires_on} long />
          </dd>
        </dl>
      )}
      {!e && !c.risque && <p className="muted">{closed ? w.exceptionClosed : w.exceptionNone}</p>}
      {writable && !closed && !editing && (
        <div className="button-row">
          <button type="button" className="button-primary" onClick={() => setEditing(true)}>
            {e ? w.changeException : w.setException}
          </button>
          {e && (
            <button type="button" className="button-secondary" disabled={remove.isPending} onClick={() => remove.mutate()}>
              {w.removeException}
            </button>
          )}
        </div>
      )}
      {remove.isError && (
        <p role="alert" className="error">
          {remove.error.message}
        </p>
      )}
      {editing && <ExceptionForm ids={ids} current={e ?? null} onClose={() => setEditing(false)} />}
    </section>
  );
}

/** The exception's form: nature, measure (MITIGATED), justification, last day of validity in Paris (today or later). */
export function ExceptionForm({
  ids,
  current,
  onClose,
  now,
}: {
  ids: Ids;
  current: Detail["exception"] | null;
  onClose(): void;
  now?: Date;
}) {
  const w = useWords(words);
  const { t } = useI18n();
  const id = useId();
  const invalidate = useInvalidate(ids);
  const today = parisToday(now);
  const [form, setForm] = useState<ExceptionIn>({
    nature: current?.nature ?? "MITIGATED",
    measure: current?.measure ?? "",
    justification: current?.justification ?? "",
    expires_on: current?.expires_on ?? addDays(today, 30),
  });
  const save = useMutation({
    mutationFn: (body: ExceptionIn) =>
      send(api.PUT("/api/v1/organizations/{org_id}/projects/{project_id}/cases/{cve_id}/exception", { params: { path: path(ids) }, body })),
    onSuccess: async () => {
      onClose();
      await invalidate();
    },
  });
  // The required fields are flagged before sending: the server's schema answers the first fault it
  // meets (an empty justification) and would leave an empty « Mesure en place » unflagged.
  const [missing, setMissing] = useState<Record<string, string>>({});
  const fields = { ...((save.error as Refused | null)?.fields ?? {}), ...missing };
  const submit = (ev: FormEvent) => {
    ev.preventDefault();
    const blank = requiredBlank(
      { measure: form.nature === "MITIGATED" ? form.measure : "-", justification: form.justification, expires_on: form.expires_on },
      t.required,
    );
    setMissing(blank);
    if (Object.keys(blank).length) return;
    save.mutate({ ...form, measure: form.nature === "MITIGATED" ? form.measure?.trim() || null : null });
  };
  const set = (patch: Partial<ExceptionIn>) => setForm((f) => ({ ...f, ...patch }));
  const err = (name: string) =>
    fields[name] ? (
      <span id={`${id}-${name}-err`} className="field-error">
        {fields[name]}
      </span>
    ) : null;
  return (
    <form className="exception-form" onSubmit={submit} noValidate>
      <div className="field">
        <label htmlFor={`${id}-nature`}>{w.nature}</label>
        <select id={`${id}-nature`} value={form.nature} onChange={(e) => set({ nature: e.target.value as ExceptionIn["nature"] })}>
          <option value="MITIGATED">{w.natures.MITIGATED}</option>
          <option value="ACCEPTED_RISK">{w.natures.ACCEPTED_RISK}</option>
        </select>
      </div>
      {form.nature === "MITIGATED" && (
        <div className="field">
          <label htmlFor={`${id}-measure`}>{w.measure}</label>
          <textarea
            id={`${id}-measure`}
            rows={2}
            required
            aria-describedby={`${id}-measure-hint${fields.measure ? ` ${id}-measure-err` : ""}`}
            value={form.measure ?? ""}
            onChange={(e) => set({ measure: e.target.value })}
          />
          <span id={`${id}-measure-hint`} className="sub">
            {w.measureHint}
          </span>
          {err("measure")}
        </div>
      )}
      <div className="field">
        <label htmlFor={`${id}-just`}>{w.justification}</label>
        <textarea
          id={`${id}-just`}
          rows={3}
          required
          aria-describedby={fields.justification ? `${id}-justification-err` : undefined}
          value={form.justification}
          onChange={(e) => set({ justification: e.target.value })}
        />
        {err("justification")}
      </div>
      <div className="field">
        <label htmlFor={`${id}-exp`}>{w.expiresOnLabel}</label>
        <input
          id={`${id}-exp`}
          type="date"
          required
          min={today}
          aria-describedby={`${id}-exp-hint${fields.expires_on ? ` ${id}-expires_on-err` : ""}`}
          value={form.expires_on}
          onChange={(e) => set({ expires_on: e.target.value })}
        />
        <span id={`${id}-exp-hint`} className="sub">
          {w.expiresOnHint}
        </span>
        {/^\d{4}-\d{2}-\d{2}$/.test(form.expires_on) && <Countdown expiresOn={form.expires_on} now={now} long />}
        {err("expires_on")}
      </div>
      {save.isError && Object.keys(fields).length === 0 && (
        <p role="alert" className="error">
          {save.error.message}
        </p>
      )}
      <div className="button-row">
        <button type="submit" className="button-primary" disabled={save.isPending}>
          {w.save}
        </button>
        <button type="button" className="button-secondary" onClick={onClose}>
          {w.cancel}
        </button>
      </div>
    </form>
  );
}

function TagsPanel({ ids, c, writable }: { ids: Ids; c: Detail; writable: boolean }) {
  const w = useWords(words);
  const id = useId();
  const invalidate = useInvalidate(ids);
  const tags = useProjectTags(ids.orgId, ids.projectId);
  const [tagId, setTagId] = useState("");
  const add = useMutation({
    mutationFn: (tag_id: string) =>
      send(
        api.POST("/api/v1/organizations/{org_id}/projects/{project_id}/cases/{cve_id}/tags", {
          params: { path: path(ids) },
          body: { tag_id },
        }),
      ),
    onSuccess: async () => {
      setTagId("");
      await invalidate();
    },
  });
  const remove = useMutation({
    mutationFn: (tag_id: string) =>
      send(
        api.DELETE("/api/v1/organizations/{org_id}/projects/{project_id}/cases/{cve_id}/tags/{tag_id}", {
          params: { path: { ...path(ids), tag_id } },
        }),
      ),
    onSuccess: invalidate,
  });
  const free = tags.data?.filter((t) => !c.tags.some((x) => x.id === t.id)) ?? [];
  const error = add.error ?? remove.error;
  return (
    <section className="panel" aria-labelledby={`${id}-h`}>
      <h2 id={`${id}-h`}>{w.tags}</h2>
      {c.tags.length === 0 ? (
        <p className="muted">{w.noTags}</p>
      ) : (
        <ul className="tag-list">
          {c.tags.map((t) => (
            <li key={t.id} className="tag" style={{ borderColor: t.color }}>
              {t.name}
              {writable && (
                <button type="button" className="tag-remove" aria-label={w.removeTagNamed(t.name)} onClick={() => remove.mutate(t.id)}>
                  ×
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      {writable && free.length > 0 && (
        <div className="field-inline">
          <label htmlFor={`${id}-t`}>{w.tagToAdd}</label>
          <select id={`${id}-t`} value={tagId} onChange={(e) => setTagId(e.target.value)}>
            <option value="">{w.choose}</option>
            {free.map((t) => (
              <option key={t.id} value={t.id}>
                {t.name}
              </option>
            ))}
          </select>
          <button type="button" className="button-secondary" disabled={!tagId || add.isPending} onClick={() => add.mutate(tagId)}>
            {w.add}
          </button>
        </div>
      )}
      {error && (
        <p role="alert" className="error">
          {error.message}
        </p>
      )}
      {writable && <ProjectTagManager orgId={ids.orgId} projectId={ids.projectId} />}
    </section>
  );
}

/** The VEX justification a history row set (`justification_vex`, or `to` of a vex_justification row), if any. */
function vexOf(event: string, details: unknown): string | null {
  const d = details as { justification_vex?: unknown; to?: unknown } | null;
  const v = event === "vex_justification" ? d?.to : d?.justification_vex;
  return typeof v === "string" ? v : null;
}

function History({ c }: { c: Detail }) {
  const w = useWords(words);
  const said = useWords(justificationWords);
  const { lang } = useI18n();
  return (
    <section aria-labelledby="case-history" className="case-history">
      <h2 id="case-history">{w.history}</h2>
      <div className="table-wrap">
        <table>
          <caption>{w.historyCaption}</caption>
          <thead>
            <tr>
              <th scope="col">{w.colWhen}</th>
              <th scope="col">{w.colWhat}</th>
              <th scope="col">{w.colStatus}</th>
              <th scope="col">{w.colWho}</th>
              <th scope="col">{w.colComment}</th>
            </tr>
          </thead>
          <tbody>
            {c.history.map((h, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: history rows have no id; the list only grows at its end.
              <tr key={i}>
                <td>{formatDate(h.created_at, lang)}</td>
                <td>
                  {w.events[h.event] ?? h.event}
                  {vexOf(h.event, h.details) && <span className="sub">{justificationLabel(said, vexOf(h.event, h.details)!)}</span>}
                </td>
                <td>
                  {h.from_status && h.from_status !== h.to_status ? (
                    <>
                      {w.statuses[h.from_status] ?? h.from_status} → {w.statuses[h.to_status] ?? h.to_status}
                    </>
                  ) : (
                    (w.statuses[h.to_status] ?? h.to_status)
                  )}
                </td>
                <td>{h.actor.label ? (w.actors[h.actor.type]?.(h.actor.label) ?? h.actor.label) : w.unknownActor}</td>
                <td>{h.comment ?? "—"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
