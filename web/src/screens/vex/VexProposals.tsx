import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { useId, useState } from "react";
import { ApiError, api, data } from "../../api/client";
import { faultsOf } from "../../api/faults";
import type { components } from "../../api/schema";
import { formatDate } from "../../format";
import { useI18n, useWords } from "../../i18n/i18n";
import { projectRoute } from "../../routes";
import { Faults } from "../../ui/Faults";
import { FileDrop } from "../../ui/FileDrop";
import { canTriage } from "../cases/common";
import { justificationWords } from "./justifications";
import { words } from "./words";
import { Pager } from "../../ui/Pager";

type Proposal = components["schemas"]["VexProposalOut"];
type Status = Proposal["status"];
type Ids = { orgId: string; projectId: string };

const PAGE_SIZE = 20;
const STATUSES: Status[] = ["proposee", "acceptee", "rejetee"];

/** A file read as text, kept with its name (the import's answer names it). */
class NotJson extends Error {
  constructor(readonly fileName: string) {
    super("not json");
  }
}

/**
 * `/p/$projectId/cases/vex`: import a supplier's VEX (its not_affected statements become proposals),
 * then decide each proposal — accept (the case becomes non_concerne with the justification) or
 * reject — with an optional comment. Members and above decide (cases-write).
 */
export function VexProposals() {
  const { org, project } = projectRoute.useRouteContext();
  if (!org || !project) return null;
  return <VexProposalsOf ids={{ orgId: org.id, projectId: project.id }} writable={canTriage(org.role)} />;
}

function VexProposalsOf({ ids, writable }: { ids: Ids; writable: boolean }) {
  const w = useWords(words);
  const { t } = useI18n();
  return (
    <section aria-labelledby="vex-title" className="screen">
      <p>
        <Link to="/p/$projectId/cases" params={{ projectId: ids.projectId }}>
          ← {w.back}
        </Link>
      </p>
      <h1 id="vex-title">{w.title}</h1>
      <p className="muted">{w.intro}</p>
      {!writable && (
        <p id="vex-why" className="notice">
          {w.needs(w.whatDecide, t.role.member)}
        </p>
      )}
      <ImportVex ids={ids} writable={writable} />
      <ProposalList ids={ids} writable={writable} />
    </section>
  );
}

/** POST …/vex with the file's JSON as it is: the answer's counts and ignored statements, or the 422's faults. */
function ImportVex({ ids, writable }: { ids: Ids; writable: boolean }) {
  const w = useWords(words);
  const id = useId();
  const queryClient = useQueryClient();
  const upload = useMutation({
    mutationFn: async (file: File) => {
      const text = await file.text();
      try {
        JSON.parse(text);
      } catch {
        throw new NotJson(file.name);
      }
      return data(
        api.POST("/api/v1/organizations/{org_id}/projects/{project_id}/vex", {
          params: { path: { org_id: ids.orgId, project_id: ids.projectId } },
          // The document goes as the supplier wrote it: the server validates it against its schema.
          body: text as unknown as Record<string, never>,
          bodySerializer: (b: unknown) => b as string,
          headers: { "content-type": "application/json" },
        }),
      );
    },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["vex-proposals", ids.projectId] }),
  });
  const faults = faultsOf(upload.error);
  const r = upload.data;
  return (
    <section className="panel" aria-labelledby={`${id}-h`}>
      <h2 id={`${id}-h`}>{w.importTitle}</h2>
      <FileDrop
        legend={w.drop}
        or={w.or}
        choose={w.choose}
        hint={w.hint}
        accept=".json,application/json"
        disabled={!writable || upload.isPending}
        describedBy={writable ? undefined : "vex-why"}
        testId="vex-drop"
        onFile={(file) => upload.mutate(file)}
      />
      <div aria-live="polite">
        {upload.isPending && upload.variables && (
          <div role="status" className="sbom-progress">
            <p>{w.reading(upload.variables.name)}</p>
            <progress aria-label={w.reading(upload.variables.name)} />
          </div>
        )}
        {r && (
          <div className="sbom-result" data-testid="vex-result">
            <h3>{w.imported(w.formats[r.format] ?? r.format, r.document)}</h3>
            <dl className="stats-figures sbom-counts">
              <div>
                <dt>{w.proposed}</dt>
                <dd>{r.proposees}</dd>
              </div>
              <div>
                <dt>{w.known}</dt>
                <dd>{r.deja_connues}</dd>
              </div>
              <div>
                <dt>{w.ignored}</dt>
                <dd>{r.ignorees.count}</dd>
              </div>
            </dl>
            {r.ignorees.count > 0 && (
              <details className="sbom-list" open={r.ignorees.count <= 5}>
                <summary>{w.ignoredList(r.ignorees.count)}</summary>
                <ul className="plain-list">
                  {r.ignorees.items.slice(0, 50).map((i, n) => (
                    // biome-ignore lint/suspicious/noArrayIndexKey: a document may state a CVE twice; the server's order.
                    <li key={n}>
                      <span className="mono">{i.cve_id}</span> — {i.raison}
                    </li>
                  ))}
                </ul>
                {r.ignorees.count > Math.min(50, r.ignorees.items.length) && (
                  <p className="sub">{w.ignoredMore(r.ignorees.count - Math.min(50, r.ignorees.items.length))}</p>
                )}
              </details>
            )}
          </div>
        )}
        {upload.isError &&
          (faults.length ? (
            <Faults
              faults={faults}
              title={w.faultsTitle(faults.length)}
              caption={w.faultsCaption}
              whereLabel={w.faultWhere}
              whatLabel={w.faultWhat}
              line={w.line}
              whole={w.wholeDocument}
            />
          ) : (
            <p role="alert" className="error">
              {upload.error instanceof NotJson
                ? w.notJson(upload.error.fileName)
                : upload.error instanceof ApiError && upload.error.status === 413
                  ? w.tooLarge(upload.error.message)
                  : upload.error instanceof ApiError && !upload.error.message.startsWith("HTTP ")
                    ? upload.error.message
                    : w.importError}
            </p>
          ))}
      </div>
    </section>
  );
}

/** GET …/vex/proposals?status=, newest first, a page at a time; waiting ones first by default. */
function ProposalList({ ids, writable }: { ids: Ids; writable: boolean }) {
  const w = useWords(words);
  const { t } = useI18n();
  const id = useId();
  const [status, setStatus] = useState<Status | "">("proposee");
  const [page, setPage] = useState(1);
  // What the last decision did (or why it was refused): kept here, the decided card may leave the list.
  const [outcome, setOutcome] = useState<{ ok: boolean; text: string } | null>(null);
  const list = useQuery({
    queryKey: ["vex-proposals", ids.projectId, status, page],
    queryFn: () =>
      data(
        api.GET("/api/v1/organizations/{org_id}/projects/{project_id}/vex/proposals", {
          params: {
            path: { org_id: ids.orgId, project_id: ids.projectId },
            query: { ...(status && { status }), page, page_size: PAGE_SIZE },
          },
        }),
      ),
    placeholderData: keepPreviousData,
  });
  const total = list.data?.total ?? 0;
  const pages = Math.max(1, Math.ceil(total / PAGE_SIZE));
  return (
    <section aria-labelledby={`${id}-h`} className="vex-list">
      <div className="panel-head">
        <h2 id={`${id}-h`}>{w.listTitle}</h2>
        <div className="field-inline">
          <label htmlFor={`${id}-s`}>{w.statusFilter}</label>
          <select
            id={`${id}-s`}
            value={status}
            onChange={(e) => {
              setStatus(e.target.value as Status | "");
              setPage(1);
            }}
          >
            <option value="">{w.anyStatus}</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {w.statuses[s]}
              </option>
            ))}
          </select>
        </div>
      </div>
      <p role="status" className="status-line">
        {outcome?.ok && outcome.text}
      </p>
      {outcome && !outcome.ok && (
        <p role="alert" className="error">
          {outcome.text}
        </p>
      )}
      {list.isPending && <p>{t.loading}</p>}
      {list.isError && (
        <div role="alert" className="error">
          {t.loadError}{" "}
          <button type="button" className="button-secondary" onClick={() => void list.refetch()}>
            {t.retry}
          </button>
        </div>
      )}
      {list.data &&
        (list.data.items.length === 0 ? (
          <p className="muted">{status === "proposee" ? w.noneWaiting : w.none}</p>
        ) : (
          <ul className="vex-proposals">
            {list.data.items.map((p) => (
              <li key={p.id}>
                <ProposalCard ids={ids} p={p} writable={writable} onOutcome={setOutcome} />
              </li>
            ))}
          </ul>
        ))}
      {pages > 1 && (
        <Pager page={page} pages={pages} onPage={setPage} label={w.page(page, pages, total)} status={w.page(page, pages, total)} />
      )}
    </section>
  );
}

/** One proposal: the CVE (its case), what the supplier says, where it comes from; Accepter / Rejeter while it waits. */
function ProposalCard({
  ids,
  p,
  writable,
  onOutcome,
}: {
  ids: Ids;
  p: Proposal;
  writable: boolean;
  onOutcome(o: { ok: boolean; text: string } | null): void;
}) {
  const w = useWords(words);
  const said = useWords(justificationWords);
  const { lang } = useI18n();
  const id = useId();
  const queryClient = useQueryClient();
  const [comment, setComment] = useState("");
  const decide = useMutation({
    mutationFn: (how: "accept" | "reject") => {
      const init = {
        params: { path: { org_id: ids.orgId, project_id: ids.projectId, proposal_id: p.id } },
        body: { comment: comment.trim() || null },
      };
      return data(
        how === "accept"
          ? api.POST("/api/v1/organizations/{org_id}/projects/{project_id}/vex/proposals/{proposal_id}/accept", init)
          : api.POST("/api/v1/organizations/{org_id}/projects/{project_id}/vex/proposals/{proposal_id}/reject", init),
      );
    },
    onMutate: () => onOutcome(null),
    onSuccess: (_r, how) => onOutcome({ ok: true, text: how === "accept" ? w.acceptedNow(p.cve_id) : w.rejectedNow(p.cve_id) }),
    onError: (err) =>
      onOutcome({
        ok: false,
        text:
          err instanceof ApiError && err.status === 409
            ? w.conflict(err.message)
            : err instanceof ApiError && !err.message.startsWith("HTTP ")
              ? err.message
              : w.decideError,
      }),
    // Decided (or refused because decided elsewhere): the list and the case change.
    onSettled: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: ["vex-proposals", ids.projectId] }),
        queryClient.invalidateQueries({ queryKey: ["cases", ids.projectId] }),
      ]),
  });
  const j = p.justification ? said[p.justification] : null;
  const who = p.decided_by?.label ? (w.actors[p.decided_by.type]?.(p.decided_by.label) ?? p.decided_by.label) : "—";
  return (
    <article className="panel vex-proposal" aria-labelledby={`${id}-h`}>
      <header className="vex-proposal-head">
        <h3 id={`${id}-h`}>
          <span className="mono">{p.cve_id}</span>
        </h3>
        <span className={`badge vex-status vex-status-${p.status}`}>{w.statuses[p.status] ?? p.status}</span>
        <span>
          {p.case_status ? (
            <Link to="/p/$projectId/cases/$cveId" params={{ projectId: ids.projectId, cveId: p.cve_id }}>
              {w.caseLink(p.cve_id)}
            </Link>
          ) : (
            <>
              <Link to="/cves/$cveId" params={{ cveId: p.cve_id }}>
                {p.cve_id}
              </Link>{" "}
              <span className="sub-inline">({w.noCase})</span>
            </>
          )}
          {p.case_status && (
            <span className={`badge case-status case-status-${p.case_status}`}>{w.caseStatuses[p.case_status] ?? p.case_status}</span>
          )}
        </span>
      </header>
      <dl className="facts">
        <dt>{w.statement}</dt>
        <dd className="mono">{p.vex_status}</dd>
        <dt>{w.justification}</dt>
        <dd>
          {j ? (
            <>
              {j.label}
              <span className="sub">{j.explain}</span>
            </>
          ) : (
            <span className="muted">{w.noJustification}</span>
          )}
        </dd>
        {p.impact_statement && (
          <>
            <dt>{w.impact}</dt>
            <dd className="notes">{p.impact_statement}</dd>
          </>
        )}
        {p.products.length > 0 && (
          <>
            <dt>{w.products}</dt>
            <dd className="mono">{p.products.join(", ")}</dd>
          </>
        )}
        <dt>{w.source}</dt>
        <dd>
          {w.sourceLine(w.formats[p.source.format] ?? p.source.format, p.source.document)}
          <span className="sub">
            {w.author} : {p.source.author ?? w.unknownAuthor}
            {p.source.timestamp && ` · ${w.issued} ${formatDate(p.source.timestamp, lang)}`}
          </span>
        </dd>
        <dt>{w.received}</dt>
        <dd>{formatDate(p.created_at, lang)}</dd>
        {p.decided_at && (
          <>
            <dt>{w.statuses[p.status]}</dt>
            <dd>
              {w.decided(w.statuses[p.status] ?? p.status, formatDate(p.decided_at, lang), who)}
              {p.decision_comment && <span className="sub">« {p.decision_comment} »</span>}
            </dd>
          </>
        )}
      </dl>
      {p.status === "proposee" && (
        <div className="vex-decide">
          <div className="field">
            <label htmlFor={`${id}-c`}>{w.comment}</label>
            <textarea
              id={`${id}-c`}
              rows={2}
              maxLength={2000}
              value={comment}
              disabled={!writable}
              aria-describedby={writable ? undefined : "vex-why"}
              onChange={(e) => setComment(e.target.value)}
            />
          </div>
          <div className="button-row">
            <button
              type="button"
              className="button-primary"
              aria-label={w.acceptFor(p.cve_id)}
              aria-describedby={writable ? undefined : "vex-why"}
              disabled={!writable || decide.isPending}
              onClick={() => decide.mutate("accept")}
            >
              {w.accept}
            </button>
            <button
              type="button"
              className="button-secondary"
              aria-label={w.rejectFor(p.cve_id)}
              aria-describedby={writable ? undefined : "vex-why"}
              disabled={!writable || decide.isPending}
              onClick={() => decide.mutate("reject")}
            >
              {w.reject}
            </button>
          </div>
        </div>
      )}
    </article>
  );
}
