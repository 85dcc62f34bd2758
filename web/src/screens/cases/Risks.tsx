import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Link, useNavigate, useParams } from "@tanstack/react-router";
import { type FormEvent, useId, useState } from "react";
import { ApiError, api, data } from "../../api/client";
import type { components } from "../../api/schema";
import { type Session, sessionQuery } from "../../api/session";
import { formatParisDate } from "../../format";
import { useI18n, useWords } from "../../i18n/i18n";
import { useCurrent } from "../../layout/current";
import { Countdown, canTriage, Failed, type Refused, SeverityBadge, send, StatusBadge } from "./common";
import { addDays, parisToday } from "./paris";
import { words } from "./words";
import { Pager } from "../../ui/Pager";

type Org = Session["organizations"][number];
type Risk = components["schemas"]["RiskDetailOut"];
type RiskIn = components["schemas"]["RiskIn"];

const PAGE_SIZE = 20;

/** The current organization (the shell's switcher), for the register, which is the organization's. */
function useOrg(): Org | null {
  const { data: session } = useQuery(sessionQuery);
  const { org } = useCurrent(session ?? { organizations: [], user: { id: "", email: "" }, expires_at: "" });
  return org;
}

/** /risks: the organization's risk register, with its filters, paging and a form for a new entry. */
export function Risks() {
  const w = useWords(words);
  const org = useOrg();
  return (
    <section aria-labelledby="risks-title" className="screen">
      <h1 id="risks-title">{w.risksTitle}</h1>
      <p className="muted">{w.risksIntro}</p>
      {org ? <RiskList org={org} /> : <p className="notice">{w.noOrg}</p>}
    </section>
  );
}

function RiskList({ org }: { org: Org }) {
  const w = useWords(words);
  const { lang } = useI18n();
  const id = useId();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const writable = canTriage(org.role);
  const [status, setStatus] = useState<"" | "active" | "expiree">("active");
  const [q, setQ] = useState("");
  const [page, setPage] = useState(1);
  const [creating, setCreating] = useState(false);
  const query = { ...(status && { status }), ...(q.trim() && { q: q.trim() }), page, page_size: PAGE_SIZE };
  const list = useQuery({
    queryKey: ["risks", org.id, query],
    queryFn: () => data(api.GET("/api/v1/organizations/{org_id}/risks", { params: { path: { org_id: org.id }, query } })),
    placeholderData: keepPreviousData,
  });
  const create = useMutation({
    mutationFn: (body: RiskIn) => send(api.POST("/api/v1/organizations/{org_id}/risks", { params: { path: { org_id: org.id } }, body })),
    onSuccess: async (r) => {
      await queryClient.invalidateQueries({ queryKey: ["risks", org.id] });
      await navigate({ to: "/risks/$riskId", params: { riskId: r.id } });
    },
  });
  const pages = list.data ? Math.max(1, Math.ceil(list.data.total / PAGE_SIZE)) : 1;
  return (
    <>
      {!writable && <p className="notice">{w.readOnly}</p>}
      <div className="filters">
        <div className="field">
          <label htmlFor={`${id}-q`}>{w.searchRisks}</label>
          <input
            id={`${id}-q`}
            type="search"
            value={q}
            onChange={(e) => {
              setQ(e.target.value);
              setPage(1);
            }}
          />
        </div>
        <div className="field">
          <label htmlFor={`${id}-s`}>{w.status}</label>
          <select
            id={`${id}-s`}
            value={status}
            onChange={(e) => {
              setStatus(e.target.value as typeof status);
              setPage(1);
            }}
          >
            <option value="">{w.any}</option>
            <option value="active">{w.riskStatus.active}</option>
            <option value="expiree">{w.riskStatus.expiree}</option>
          </select>
        </div>
        {writable && !creating && (
          <button type="button" className="button-primary align-end" onClick={() => setCreating(true)}>
            {w.newRisk}
          </button>
        )}
      </div>
      {creating && (
        <section className="panel" aria-labelledby={`${id}-new`}>
          <h2 id={`${id}-new`}>{w.newRisk}</h2>
          <RiskForm
            submitLabel={w.createRisk}
            pending={create.isPending}
            error={create.error as Refused | null}
            onSubmit={(b) => create.mutate(b)}
            onCancel={() => setCreating(false)}
          />
        </section>
      )}
      {list.isPending && <p role="status">{w.loading}</p>}
      {list.isError && <Failed onRetry={() => void list.refetch()} />}
      {list.data && (
        <>
          <div className="table-wrap">
            <table>
              <caption>{w.risksCaption}</caption>
              <thead>
                <tr>
                  <th scope="col">{w.title}</th>
                  <th scope="col">{w.owner}</th>
                  <th scope="col">{w.status}</th>
                  <th scope="col">{w.colExpiry}</th>
                  <th scope="col">{w.reviewOn}</th>
                  <th scope="col" className="num">
                    {w.colCases}
                  </th>
                </tr>
              </thead>
              <tbody>
                {list.data.items.length === 0 && (
                  <tr>
                    <td colSpan={6} className="muted">
                      {w.noRisks}
                    </td>
                  </tr>
                )}
                {list.data.items.map((r) => (
                  <tr key={r.id}>
                    <th scope="row">
                      <Link to="/risks/$riskId" params={{ riskId: r.id }}>
                        {r.title}
                      </Link>
                    </th>
                    <td>{r.owner}</td>
                    <td>
                      <span className={`badge ${r.status === "active" ? "badge-ok" : "badge-idle"}`}>{w.riskStatus[r.status]}</span>
                    </td>
                    <td>
                      {r.status === "active" ? <Countdown expiresOn={r.expires_on} /> : null}
                      <span className="sub">{formatParisDate(r.expires_on, lang)}</span>
                    </td>
                    <td>{r.review_on ? formatParisDate(r.review_on, lang) : "—"}</td>
                    <td className="num">{r.cases_count}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager page={page} pages={pages} onPage={setPage} label={w.risksCaption} status={w.riskPage(page, pages, list.data.total)} />
        </>
      )}
    </>
  );
}

/** An entry's fields: title, owner, justification, review date, last day of validity (Paris time). */
function RiskForm(props: {
  initial?: Risk;
  submitLabel: string;
  pending: boolean;
  error: Refused | null;
  onSubmit(body: RiskIn): void;
  onCancel(): void;
}) {
  const w = useWords(words);
  const id = useId();
  const today = parisToday();
  const [f, setF] = useState({
    title: props.initial?.title ?? "",
    owner: props.initial?.owner ?? "",
    justification: props.initial?.justification ?? "",
    review_on: props.initial?.review_on ?? "",
    expires_on: props.initial?.expires_on ?? addDays(today, 90),
  });
  const fields = props.error?.fields ?? {};
  const submit = (e: FormEvent) => {
    e.preventDefault();
    props.onSubmit({
      title: f.title,
      owner: f.owner,
      justification: f.justification,
      review_on: f.review_on || null,
      expires_on: f.expires_on,
    });
  };
  const input = (name: keyof typeof f, label: string, type = "text") => (
    <div className="field">
      <label htmlFor={`${id}-${name}`}>{label}</label>
      {name === "justification" ? (
        <textarea
          id={`${id}-${name}`}
          rows={3}
          value={f[name]}
          onChange={(e) => setF({ ...f, [name]: e.target.value })}
          aria-describedby={fields[name] ? `${id}-${name}-err` : undefined}
        />
      ) : (
        <input
          id={`${id}-${name}`}
          type={type}
          value={f[name]}
          min={type === "date" ? today : undefined}
          onChange={(e) => setF({ ...f, [name]: e.target.value })}
          aria-describedby={fields[name] ? `${id}-${name}-err` : undefined}
        />
      )}
      {fields[name] && (
        <span id={`${id}-${name}-err`} className="field-error">
          {fields[name]}
        </span>
      )}
    </div>
  );
  return (
    <form onSubmit={submit} noValidate className="risk-form">
      {input("title", w.title)}
      {input("owner", w.owner)}
      {input("justification", w.justification)}
      {input("review_on", `${w.reviewOn} ${w.optional}`, "date")}
      {input("expires_on", w.expiresOnLabel, "date")}
      {/^\d{4}-\d{2}-\d{2}$/.test(f.expires_on) && <Countdown expiresOn={f.expires_on} long />}
      {props.error && Object.keys(fields).length === 0 && (
        <p role="alert" className="error">
          {props.error.message}
        </p>
      )}
      <div className="button-row">
        <button type="submit" className="button-primary" disabled={props.pending}>
          {props.submitLabel}
        </button>
        <button type="button" className="button-secondary" onClick={props.onCancel}>
          {w.cancel}
        </button>
      </div>
    </form>
  );
}

/** /risks/$riskId: one entry, the cases it covers (uncover, cover one more), edit and withdraw. */
export function RiskDetail() {
  const w = useWords(words);
  const org = useOrg();
  const { riskId } = useParams({ strict: false }) as { riskId: string };
  return (
    <section aria-labelledby="risk-title" className="screen">
      <p>
        <Link to="/risks">← {w.backToRisks}</Link>
      </p>
      {org ? <RiskOf org={org} riskId={riskId} /> : <h1 id="risk-title">{w.risksTitle}</h1>}
    </section>
  );
}

function RiskOf({ org, riskId }: { org: Org; riskId: string }) {
  const w = useWords(words);
  const { lang } = useI18n();
  const id = useId();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const writable = canTriage(org.role);
  const [editing, setEditing] = useState(false);
  const path = { org_id: org.id, risk_id: riskId };
  const risk = useQuery({
    queryKey: ["risks", org.id, "detail", riskId],
    queryFn: () => data(api.GET("/api/v1/organizations/{org_id}/risks/{risk_id}", { params: { path } })),
  });
  // A change to the register changes the cases it covers too (their status, `risque`).
  const invalidate = async () => {
    await queryClient.invalidateQueries({ queryKey: ["risks", org.id] });
    await Promise.all(org.projects.map((p) => queryClient.invalidateQueries({ queryKey: ["cases", p.id] })));
  };
  const update = useMutation({
    mutationFn: (body: RiskIn) => {
      const { cases: _c, comment: _m, ...patch } = body;
      return send(api.PATCH("/api/v1/organizations/{org_id}/risks/{risk_id}", { params: { path }, body: patch }));
    },
    onSuccess: async () => {
      setEditing(false);
      await invalidate();
    },
  });
  const withdraw = useMutation({
    mutationFn: () => send(api.DELETE("/api/v1/organizations/{org_id}/risks/{risk_id}", { params: { path }, body: {} })),
    onSuccess: async () => {
      await invalidate();
      await navigate({ to: "/risks" });
    },
  });
  const uncover = useMutation({
    mutationFn: (c: { project_id: string; cve_id: string }) =>
      send(
        api.DELETE("/api/v1/organizations/{org_id}/risks/{risk_id}/cases/{project_id}/{cve_id}", {
          params: { path: { ...path, ...c } },
          body: {},
        }),
      ),
    onSuccess: invalidate,
  });
  if (risk.isPending) return <p role="status">{w.loading}</p>;
  if (risk.isError)
    return (
      <>
        <h1 id="risk-title">{w.risksTitle}</h1>
        {risk.error instanceof ApiError && (risk.error.status === 404 || risk.error.status === 422) ? (
          <p className="notice">{w.riskNotFound}</p>
        ) : (
          <Failed onRetry={() => void risk.refetch()} />
        )}
      </>
    );
  const r = risk.data;
  const active = r.status === "active";
  const projectName = (pid: string) => org.projects.find((p) => p.id === pid)?.name ?? pid;
  const error = withdraw.error ?? uncover.error;
  return (
    <>
      <h1 id="risk-title">{w.riskTitle(r.title)}</h1>
      {!active && <p className="notice">{w.riskExpired}</p>}
      {editing ? (
        <section className="panel" aria-labelledby={`${id}-edit`}>
          <h2 id={`${id}-edit`}>{w.editRisk}</h2>
          <RiskForm
            initial={r}
            submitLabel={w.save}
            pending={update.isPending}
            error={update.error as Refused | null}
            onSubmit={(b) => update.mutate(b)}
            onCancel={() => setEditing(false)}
          />
        </section>
      ) : (
        <dl className="facts risk-facts">
          <dt>{w.owner}</dt>
          <dd>{r.owner}</dd>
          <dt>{w.justification}</dt>
          <dd className="notes">{r.justification}</dd>
          <dt>{w.status}</dt>
          <dd>
            <span className={`badge ${active ? "badge-ok" : "badge-idle"}`}>{w.riskStatus[r.status]}</span>
          </dd>
          <dt>{w.expiresOnLabel}</dt>
          <dd>{active ? <Countdown expiresOn={r.expires_on} long /> : formatParisDate(r.expires_on, lang)}</dd>
          <dt>{w.reviewOn}</dt>
          <dd>{r.review_on ? formatParisDate(r.review_on, lang) : "—"}</dd>
        </dl>
      )}
      {writable && !editing && (
        <div className="button-row">
          {active && (
            <button type="button" className="button-primary" onClick={() => setEditing(true)}>
              {w.editRisk}
            </button>
          )}
          <button
            type="button"
            className="button-secondary"
            disabled={withdraw.isPending}
            onClick={() => window.confirm(w.withdrawConfirm) && withdraw.mutate()}
          >
            {w.withdrawRisk}
          </button>
        </div>
      )}
      {error && (
        <p role="alert" className="error">
          {error.message}
        </p>
      )}
      <section aria-labelledby={`${id}-cases`}>
        <h2 id={`${id}-cases`}>{w.coveredCases}</h2>
        <div className="table-wrap">
          <table>
            <caption>{w.coveredCaption}</caption>
            <thead>
              <tr>
                <th scope="col">{w.colProject}</th>
                <th scope="col">{w.colCve}</th>
                <th scope="col">{w.colStatus}</th>
                <th scope="col">{w.colSeverity}</th>
                {writable && (
                  <th scope="col">
                    <span className="visually-hidden">{w.uncover("")}</span>
                  </th>
                )}
              </tr>
            </thead>
            <tbody>
              {r.cases.length === 0 && (
                <tr>
                  <td colSpan={writable ? 5 : 4} className="muted">
                    {w.noCases}
                  </td>
                </tr>
              )}
              {r.cases.map((c) => (
                <tr key={`${c.project_id}/${c.cve_id}`}>
                  <td>{projectName(c.project_id)}</td>
                  <th scope="row">
                    <Link to="/p/$projectId/cases/$cveId" params={{ projectId: c.project_id, cveId: c.cve_id }}>
                      {c.cve_id}
                    </Link>
                  </th>
                  <td>
                    <StatusBadge status={c.status} />
                  </td>
                  <td>
                    <SeverityBadge severity={c.severity} />
                  </td>
                  {writable && (
                    <td>
                      <button
                        type="button"
                        className="button-secondary"
                        disabled={uncover.isPending}
                        onClick={() => uncover.mutate({ project_id: c.project_id, cve_id: c.cve_id })}
                      >
                        {w.uncover(c.cve_id)}
                      </button>
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
      {writable && active && <CoverForm org={org} riskId={riskId} onDone={invalidate} />}
    </>
  );
}

/** Cover one case (created if the project has none): it becomes risque_accepte. */
function CoverForm({ org, riskId, onDone }: { org: Org; riskId: string; onDone(): Promise<void> }) {
  const w = useWords(words);
  const id = useId();
  const [projectId, setProjectId] = useState(org.projects[0]?.id ?? "");
  const [cve, setCve] = useState("");
  const cover = useMutation({
    mutationFn: () =>
      send(
        api.POST("/api/v1/organizations/{org_id}/risks/{risk_id}/cases", {
          params: { path: { org_id: org.id, risk_id: riskId } },
          body: { cases: [{ project_id: projectId, cve_id: cve.trim() }] },
        }),
      ),
    onSuccess: async () => {
      setCve("");
      await onDone();
    },
  });
  return (
    <form
      className="panel cover-form"
      aria-labelledby={`${id}-h`}
      onSubmit={(e) => {
        e.preventDefault();
        cover.mutate();
      }}
    >
      <h2 id={`${id}-h`}>{w.coverCase}</h2>
      <div className="filters">
        <div className="field">
          <label htmlFor={`${id}-p`}>{w.colProject}</label>
          <select id={`${id}-p`} value={projectId} onChange={(e) => setProjectId(e.target.value)}>
            {org.projects.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor={`${id}-c`}>{w.cveId}</label>
          <input id={`${id}-c`} value={cve} placeholder="CVE-2024-3400" onChange={(e) => setCve(e.target.value)} />
        </div>
        <button type="submit" className="button-primary align-end" disabled={!cve.trim() || !projectId || cover.isPending}>
          {w.cover}
        </button>
      </div>
      {cover.isError && (
        <p role="alert" className="error">
          {cover.error.message}
        </p>
      )}
    </form>
  );
}
