import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useId, useState } from "react";
import { api, data } from "../../api/client";
import { download } from "../../api/files";
import { formatDate } from "../../format";
import { useI18n, useWords } from "../../i18n/i18n";
import { errorText, useProject } from "./project";
import { sbomsQuery } from "./queries";
import type { StackSbom } from "./sbom";
import { useAlertsChanged } from "./SbomImport";
import { words } from "./words";

/**
 * The stack's SBOM documents (format, version, what they describe, components, items, last load),
 * each with « Voir ses éléments » and « Retirer » (admins, with a confirmation saying what happens to
 * the alerts); « Télécharger en CycloneDX » for the whole stack (any role).
 */
export function SbomDocuments({ stackId, onFilter }: { stackId: string; onFilter(sbomId: string): void }) {
  const w = useWords(words);
  const { t, lang } = useI18n();
  const id = useId();
  const { path, canManage } = useProject();
  const sboms = useQuery(sbomsQuery(path, stackId));
  const [removed, setRemoved] = useState<string | null>(null);
  const save = useMutation({
    mutationFn: () =>
      download(
        api.GET("/api/v1/organizations/{org_id}/projects/{project_id}/stacks/{stack_id}/sbom", {
          params: { path: { ...path, stack_id: stackId } },
          parseAs: "blob",
        }),
        `stack-${stackId}.cdx.json`,
      ),
  });
  return (
    <section className="panel" aria-labelledby={`${id}-title`}>
      <div className="panel-head">
        <h2 id={`${id}-title`}>{w.sbomsTitle}</h2>
        <button
          type="button"
          className="button-secondary"
          aria-describedby={`${id}-dl`}
          disabled={save.isPending}
          onClick={() => save.mutate()}
        >
          {w.download}
        </button>
      </div>
      <p id={`${id}-dl`} className="muted small">
        {w.downloadHint}
      </p>
      <p role="status" className="status-line">
        {save.isSuccess && w.downloaded(save.data)}
        {removed}
      </p>
      {save.isError && (
        <p role="alert" className="error">
          {errorText(save.error, w.downloadError)}
        </p>
      )}
      {!canManage && (sboms.data?.length ?? 0) > 0 && (
        <p id={`${id}-why`} className="notice">
          {w.needs(w.whatRetire, t.role.admin)}
        </p>
      )}
      {sboms.isPending && <p role="status">{t.loading}</p>}
      {sboms.isError && (
        <p role="alert" className="error">
          {errorText(sboms.error, t.loadError)}
        </p>
      )}
      {sboms.data &&
        (sboms.data.length === 0 ? (
          <p className="muted">{w.sbomsNone}</p>
        ) : (
          <div className="table-wrap">
            <table>
              <caption>{w.sbomsCaption}</caption>
              <thead>
                <tr>
                  <th scope="col">{w.colDocument}</th>
                  <th scope="col">{w.colFormat}</th>
                  <th scope="col" className="num">
                    {w.colComponents}
                  </th>
                  <th scope="col" className="num">
                    {w.colSbomItems}
                  </th>
                  <th scope="col">{w.colLoaded}</th>
                  <th scope="col">{w.colActions}</th>
                </tr>
              </thead>
              <tbody>
                {sboms.data.map((s) => (
                  <SbomRow
                    key={s.id}
                    stackId={stackId}
                    sbom={s}
                    lang={lang}
                    why={canManage ? undefined : `${id}-why`}
                    onFilter={onFilter}
                    onRemoved={setRemoved}
                  />
                ))}
              </tbody>
            </table>
          </div>
        ))}
    </section>
  );
}

function SbomRow({
  stackId,
  sbom,
  lang,
  why,
  onFilter,
  onRemoved,
}: {
  stackId: string;
  sbom: StackSbom;
  lang: "fr" | "en";
  /** The note's id when the role may not remove. */
  why?: string;
  onFilter(sbomId: string): void;
  onRemoved(text: string): void;
}) {
  const w = useWords(words);
  const { path, canManage } = useProject();
  const queryClient = useQueryClient();
  const alertsChanged = useAlertsChanged();
  const [confirming, setConfirming] = useState(false);
  const name = sbom.name ?? w.unnamed;
  const remove = useMutation({
    mutationFn: () =>
      data(
        api.DELETE("/api/v1/organizations/{org_id}/projects/{project_id}/stacks/{stack_id}/sboms/{sbom_id}", {
          params: { path: { ...path, stack_id: stackId, sbom_id: sbom.id } },
        }),
      ),
    onSuccess: async (r) => {
      onRemoved(w.retired(r.items_retires, r.alertes_plus_correspondantes));
      await Promise.all([
        queryClient.invalidateQueries({
          queryKey: ["stacks", path.project_id],
          predicate: (q) => q.queryKey.length === 2 || q.queryKey[2] === stackId,
        }),
        alertsChanged(),
      ]);
    },
  });
  return (
    <>
      <tr>
        <th scope="row">{name}</th>
        <td>{w.formatOf(sbom.format, sbom.spec_version, sbom.encoding)}</td>
        <td className="num">{sbom.component_count}</td>
        <td className="num">{sbom.item_count}</td>
        <td>{formatDate(sbom.updated_at, lang)}</td>
        <td className="row-actions">
          <button
            type="button"
            className="button-secondary button-small"
            aria-label={w.filterBySbom(name)}
            onClick={() => onFilter(sbom.id)}
          >
            {w.seeItems}
          </button>
          <button
            type="button"
            className="button-secondary button-small"
            aria-label={w.retireSbom(name)}
            aria-describedby={why}
            aria-expanded={confirming}
            disabled={!canManage || remove.isPending}
            onClick={() => setConfirming(true)}
          >
            {w.remove}
          </button>
        </td>
      </tr>
      {confirming && (
        <tr className="confirm-row">
          <td colSpan={6}>
            <p>{w.retireConfirm(name, sbom.item_count)}</p>
            <div className="button-row">
              <button type="button" className="button-danger" disabled={remove.isPending} onClick={() => remove.mutate()}>
                {w.confirmRetire}
              </button>
              <button type="button" className="button-secondary" onClick={() => setConfirming(false)}>
                {w.cancel}
              </button>
            </div>
            {remove.isError && (
              <p role="alert" className="error">
                {errorText(remove.error, w.saveError)}
              </p>
            )}
          </td>
        </tr>
      )}
    </>
  );
}
