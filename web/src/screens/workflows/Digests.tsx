import { useQuery } from "@tanstack/react-query";
import { useId } from "react";
import { formatDate } from "../../format";
import { useI18n, useWords } from "../../i18n/i18n";
import { calls, keys, type Scope } from "./api";
import { words } from "./words";

/**
 * GET …/digest-preview: the next digest of each digest node from the events waiting now, and the
 * last digests (docs/digests.md). Nothing when the workflow has no digest (and no carried-over event).
 */
export function DigestPanel({ scope, workflowId }: { scope: Scope; workflowId: string }) {
  const w = useWords(words);
  const { lang } = useI18n();
  const id = useId();
  const preview = useQuery({ queryKey: keys.digests(scope.projectId, workflowId), queryFn: () => calls.digestPreview(scope, workflowId) });
  const data = preview.data;
  if (!data || (data.resumes.length === 0 && data.derniers.length === 0)) return null;
  const every = { hourly: w.everyHourly, daily: w.everyDaily, weekly: w.everyWeekly };
  return (
    <section aria-labelledby={`${id}-title`} className="wf-card">
      <h2 id={`${id}-title`}>{w.digestsTitle}</h2>
      <p className="muted">{w.digestsIntro}</p>
      {data.resumes.map((r) => (
        <div key={r.node_id} className="wf-digest">
          <p>
            <strong>{w.digestLine(r.node_id, every[r.every], formatDate(r.prochain_envoi, lang), r.total)}</strong>
            {r.reportes_par_limite > 0 && <span className="sub"> · {w.digestThrottled(r.reportes_par_limite)}</span>}
            {r.fait_pour_la_limite && <span className="sub"> · {w.digestForLimit}</span>}
          </p>
          {r.groupes.length > 0 && (
            <ul>
              {r.groupes.map((g) => (
                <li key={g.libelle}>
                  {g.libelle} : {g.total} — {g.produits.map((p) => `${p.nom} (${p.total})`).join(", ")}
                </li>
              ))}
            </ul>
          )}
          <details>
            <summary>{w.digestText}</summary>
            <pre className="wf-digest-text">{r.texte}</pre>
          </details>
        </div>
      ))}
      {data.derniers.length > 0 && (
        <>
          <h3>{w.digestsLast}</h3>
          <ul>
            {data.derniers.map((d) => (
              <li key={d.id}>
                {formatDate(d.ferme_a, lang)} · {d.node_id} · {w.digestStatus[d.statut] ?? d.statut} · {d.total}
                {d.erreur && <span className="error"> · {d.erreur}</span>}
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
