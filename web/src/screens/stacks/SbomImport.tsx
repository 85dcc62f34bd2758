import { type UseMutationResult, useMutation, useQueryClient } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { type ReactNode, useEffect, useId, useState } from "react";
import { ApiError } from "../../api/client";
import { formatBytes } from "../../api/files";
import { useI18n, useWords } from "../../i18n/i18n";
import { Faults } from "../../ui/Faults";
import { FileDrop } from "../../ui/FileDrop";
import { useProject } from "./project";
import { createFrom, faultsOf, type Imported, importInto, SBOM_ACCEPT, type SbomImport, type StackFromSbom, TooLarge } from "./sbom";
import { words } from "./words";

/** The alert views an import or a removal changes: the inbox and the figures. */
export function useAlertsChanged() {
  const queryClient = useQueryClient();
  const { path } = useProject();
  return () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: ["alerts", path.project_id] }),
      queryClient.invalidateQueries({ queryKey: ["stats", path.project_id] }),
    ]);
}

/** « Importer un SBOM » on a stack: drop or choose a file, then the difference the server answers. Admins (stacks-write). */
export function SbomImportPanel({ stackId }: { stackId: string }) {
  const w = useWords(words);
  const { t } = useI18n();
  const id = useId();
  const { path, canManage } = useProject();
  const queryClient = useQueryClient();
  const alertsChanged = useAlertsChanged();
  const [lenient, setLenient] = useState(false);
  const upload = useMutation({
    mutationFn: (file: File) => importInto(path, stackId, file, lenient),
    onSuccess: () =>
      Promise.all([
        queryClient.invalidateQueries({
          queryKey: ["stacks", path.project_id],
          predicate: (q) => q.queryKey.length === 2 || q.queryKey[2] === stackId,
        }),
        alertsChanged(),
      ]),
  });
  return (
    <section className="panel" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{w.sbomTitle}</h2>
      <p className="muted small">{w.sbomIntro}</p>
      {!canManage && (
        <p id={`${id}-why`} className="notice">
          {w.needs(w.sbomTitle, t.role.admin)}
        </p>
      )}
      <FileDrop
        legend={w.sbomDrop}
        or={w.sbomOr}
        choose={w.sbomChoose}
        hint={w.sbomHint}
        accept={SBOM_ACCEPT}
        disabled={!canManage || upload.isPending}
        describedBy={canManage ? undefined : `${id}-why`}
        testId="sbom-drop"
        onFile={(file) => upload.mutate(file)}
      />
      <div className="checks">
        <label>
          <input type="checkbox" checked={lenient} disabled={!canManage} onChange={(e) => setLenient(e.target.checked)} /> {w.sbomLenient}
        </label>
      </div>
      <UploadOutcome upload={upload}>{(r) => <Difference result={r.result} created={r.created} />}</UploadOutcome>
    </section>
  );
}

/** « Nouvelle pile depuis un SBOM » (Stacks): an optional name, then the file; the new stack's link and what the import did. */
export function NewStackFromSbom() {
  const w = useWords(words);
  const { t } = useI18n();
  const id = useId();
  const { path, canManage } = useProject();
  const queryClient = useQueryClient();
  const alertsChanged = useAlertsChanged();
  const [name, setName] = useState("");
  const upload = useMutation({
    mutationFn: (file: File) => createFrom(path, name, file),
    onSuccess: () => Promise.all([queryClient.invalidateQueries({ queryKey: ["stacks", path.project_id] }), alertsChanged()]),
  });
  return (
    <section className="panel" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{w.fromSbomTitle}</h2>
      <p className="muted small">{w.fromSbomIntro}</p>
      {!canManage && (
        <p id={`${id}-why`} className="notice">
          {w.needs(w.whatCreate, t.role.admin)}
        </p>
      )}
      <div className="field stack-name-field">
        <label htmlFor={`${id}-name`}>{w.fromSbomName}</label>
        <input
          id={`${id}-name`}
          value={name}
          maxLength={100}
          disabled={!canManage}
          aria-describedby={`${id}-name-hint`}
          onChange={(e) => setName(e.target.value)}
        />
        <span id={`${id}-name-hint`} className="sub">
          {w.fromSbomNameHint}
        </span>
      </div>
      <FileDrop
        legend={w.sbomDrop}
        or={w.sbomOr}
        choose={w.sbomChoose}
        hint={w.sbomHint}
        accept={SBOM_ACCEPT}
        disabled={!canManage || upload.isPending}
        describedBy={canManage ? undefined : `${id}-why`}
        testId="sbom-new-drop"
        onFile={(file) => upload.mutate(file)}
      />
      <UploadOutcome upload={upload}>
        {(r) => (
          <>
            <p className="status-line">
              <strong>{w.stackCreated(r.result.stack.name, r.result.stack.item_count)}</strong>{" "}
              <Link to="/p/$projectId/stacks/$stackId" params={{ projectId: path.project_id, stackId: r.result.stack.id }}>
                {w.openStack(r.result.stack.name)}
              </Link>
            </p>
            <Difference result={r.result} created />
          </>
        )}
      </UploadOutcome>
    </section>
  );
}

/** Seconds since `active` turned true (a ticking counter while the server works). */
function useElapsed(active: boolean): number {
  const [seconds, setSeconds] = useState(0);
  useEffect(() => {
    setSeconds(0);
    if (!active) return;
    const started = Date.now();
    const timer = setInterval(() => setSeconds(Math.floor((Date.now() - started) / 1000)), 1000);
    return () => clearInterval(timer);
  }, [active]);
  return seconds;
}

/** The upload's state: sending (file, size, seconds), the answer, or why it was refused. */
function UploadOutcome<T>({
  upload,
  children,
}: {
  upload: UseMutationResult<Imported<T>, Error, File>;
  children(r: Imported<T>): ReactNode;
}) {
  const w = useWords(words);
  const { lang } = useI18n();
  const seconds = useElapsed(upload.isPending);
  const file = upload.variables;
  return (
    <div aria-live="polite" className="sbom-outcome">
      {upload.isPending && file && (
        <div role="status" className="sbom-progress">
          <p>{w.sending(file.name, formatBytes(file.size, lang))}</p>
          <progress aria-label={w.progressLabel} />
          <span className="sub">{w.elapsed(seconds)}</span>
        </div>
      )}
      {upload.isSuccess && children(upload.data)}
      {upload.isError && <UploadError error={upload.error} fileName={file?.name ?? ""} />}
    </div>
  );
}

/** Why the server (or the size check) refused the file: each fault of a 422 with its place; a 413 or 415 in words. */
export function UploadError({ error, fileName }: { error: Error; fileName: string }) {
  const w = useWords(words);
  const { lang } = useI18n();
  if (error instanceof TooLarge)
    return (
      <p role="alert" className="error">
        {w.tooLarge(formatBytes(error.size, lang))}
      </p>
    );
  if (error instanceof ApiError && error.status === 413)
    return (
      <p role="alert" className="error">
        {w.tooLargeServer(error.message)}
      </p>
    );
  if (error instanceof ApiError && error.status === 415)
    return (
      <p role="alert" className="error">
        {w.unsupported(error.message)}
      </p>
    );
  const faults = faultsOf(error);
  if (faults.length)
    return (
      <Faults
        faults={faults}
        title={w.faultsTitle(fileName, faults.length)}
        caption={w.faultsCaption}
        whereLabel={w.faultWhere}
        whatLabel={w.faultWhat}
        line={w.line}
        whole={w.wholeDocument}
      />
    );
  return (
    <p role="alert" className="error">
      {error instanceof ApiError && !error.message.startsWith("HTTP ") ? error.message : w.importError}
    </p>
  );
}

/** How many items each list shows before « … et N de plus ». */
const SHOWN = 20;

/** The import's answer: the counts, the first items of each list (expandable), the alerts it raised or unmatched. */
export function Difference({ result, created }: { result: SbomImport | StackFromSbom; created: boolean }) {
  const w = useWords(words);
  const { path } = useProject();
  const name = result.sbom.name ?? w.unnamed;
  const unchanged = !created && result.ajoutes.count === 0 && result.retires.count === 0 && result.versions_changees.count === 0;
  const counts: [string, number][] = [
    [w.countAdded, result.ajoutes.count],
    [w.countRemoved, result.retires.count],
    [w.countChanged, result.versions_changees.count],
    [w.countUnchanged, result.inchanges],
    [w.countIgnored, result.ignores.count],
    ...(result.sbom.fault_count ? ([[w.countFaults, result.sbom.fault_count]] as [string, number][]) : []),
  ];
  const alertLines = [
    w.alertsRaised(result.alertes_creees),
    ...(result.alertes_plus_correspondantes ? [w.alertsUnmatched(result.alertes_plus_correspondantes)] : []),
    ...(result.alertes_correspondantes_a_nouveau ? [w.alertsRematched(result.alertes_correspondantes_a_nouveau)] : []),
  ];
  const touchedAlerts = result.alertes_creees + result.alertes_plus_correspondantes + result.alertes_correspondantes_a_nouveau > 0;
  return (
    <div className="sbom-result" data-testid="sbom-result">
      <h3>{created ? w.resultNew(name) : w.resultReplaced(name)}</h3>
      {unchanged && <p className="status-line">{w.nothingChanged(result.inchanges)}</p>}
      <dl className="stats-figures sbom-counts" aria-label={w.differenceCaption}>
        {counts.map(([label, n]) => (
          <div key={label}>
            <dt>{label}</dt>
            <dd>{n}</dd>
          </div>
        ))}
      </dl>
      <SampleList title={w.listAdded(result.ajoutes.count)} total={result.ajoutes.count} items={result.ajoutes.items}>
        {(i) => (
          <>
            <span className="mono">{i.value}</span>
          </>
        )}
      </SampleList>
      <SampleList title={w.listRemoved(result.retires.count)} total={result.retires.count} items={result.retires.items}>
        {(i) => <span className="mono">{i.value}</span>}
      </SampleList>
      <SampleList
        title={w.listChanged(result.versions_changees.count)}
        total={result.versions_changees.count}
        items={result.versions_changees.items}
      >
        {(i) => (
          <>
            <span className="mono">{i.sbom_key}</span> : {i.from ?? w.noVersion} → {i.to ?? w.noVersion}
          </>
        )}
      </SampleList>
      <SampleList title={w.listIgnored(result.ignores.count)} total={result.ignores.count} items={result.ignores.items}>
        {(i) => (
          <>
            <strong>{i.name}</strong>
            {i.version ? ` ${i.version}` : ""} <span className="sub-inline">({w.ignoredWhy(i.raison)})</span>
          </>
        )}
      </SampleList>
      <div className="sbom-alerts">
        {alertLines.map((line) => (
          <p key={line}>{line}</p>
        ))}
        {touchedAlerts && (
          <p>
            <Link to="/p/$projectId/alerts" params={{ projectId: path.project_id }}>
              {w.toInbox}
            </Link>
          </p>
        )}
      </div>
    </div>
  );
}

/** One list of the difference: closed, its first SHOWN entries when opened, and how many more there are. */
function SampleList<T>({ title, total, items, children }: { title: string; total: number; items: T[]; children(item: T): ReactNode }) {
  const w = useWords(words);
  if (total === 0) return null;
  const shown = items.slice(0, SHOWN);
  return (
    <details className="sbom-list">
      <summary>{title}</summary>
      <ul className="plain-list">
        {shown.map((item, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: the server's sample, in document order; it never reorders.
          <li key={i}>{children(item)}</li>
        ))}
      </ul>
      {total > shown.length && <p className="sub">{w.moreNotShown(total - shown.length)}</p>}
    </details>
  );
}
