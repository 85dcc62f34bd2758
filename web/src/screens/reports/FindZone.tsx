import { useMutation } from "@tanstack/react-query";
import { type DragEvent, useId, useState } from "react";
import { ApiError, api, data } from "../../api/client";
import type { components } from "../../api/schema";
import { formatDate } from "../../format";
import { useI18n, useWords } from "../../i18n/i18n";
import { words } from "./words";

type Found = components["schemas"]["EvidenceFoundOut"];

/**
 * Find a report again from its file: dropped on the zone, or chosen with the file input. The file
 * goes as multipart (field `file`) to POST /api/v1/organizations/{org_id}/evidence/find; the answer
 * says which report and version it is, or (404) that no report has exactly these bytes.
 */
export function FindZone({ orgId }: { orgId: string }) {
  const w = useWords(words);
  const { lang } = useI18n();
  const inputId = useId();
  const [over, setOver] = useState(false);
  const find = useMutation({
    mutationFn: (file: File) => {
      const form = new FormData();
      form.append("file", file, file.name);
      return data(
        api.POST("/api/v1/organizations/{org_id}/evidence/find", {
          params: { path: { org_id: orgId } },
          // FormData goes as it is (openapi-fetch): the browser sets the multipart boundary.
          body: form as unknown as { file: string },
        }),
      );
    },
  });
  const name = find.variables?.name ?? "";
  const drop = (e: DragEvent) => {
    e.preventDefault();
    setOver(false);
    const file = e.dataTransfer.files[0];
    if (file) find.mutate(file);
  };
  return (
    <section aria-labelledby="find-title" className="reports-find">
      <h2 id="find-title">{w.findTitle}</h2>
      <fieldset
        className={`dropzone${over ? " dropzone-over" : ""}`}
        data-testid="dropzone"
        onDragOver={(e) => {
          e.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={drop}
      >
        <legend>{w.findDrop}</legend>
        <p>
          {w.findOr}{" "}
          <label htmlFor={inputId} className="button-secondary file-label">
            {w.findChoose}
          </label>
          <input
            id={inputId}
            type="file"
            className="visually-hidden"
            accept=".pdf,.json,.csv,application/pdf,application/json,text/csv"
            onChange={(e) => {
              const file = e.target.files?.[0];
              if (file) find.mutate(file);
              e.target.value = "";
            }}
          />
        </p>
      </fieldset>
      <div aria-live="polite">
        {find.isPending && <p role="status">{w.findChecking(name)}</p>}
        {find.isSuccess && <FoundCard found={find.data} name={name} lang={lang} />}
        {find.isError &&
          (find.error instanceof ApiError && find.error.status === 404 ? (
            <div className="find-result find-unknown" role="alert">
              <h3>{w.unknownTitle(name)}</h3>
              <p>{w.unknownText}</p>
            </div>
          ) : (
            <p role="alert" className="error">
              {find.error.message}
            </p>
          ))}
      </div>
    </section>
  );
}

function FoundCard({ found, name, lang }: { found: Found; name: string; lang: "fr" | "en" }) {
  const w = useWords(words);
  return (
    <div className="find-result find-found">
      <h3>{w.foundTitle(name)}</h3>
      <dl className="facts">
        <dt>{w.report}</dt>
        <dd>{found.titre}</dd>
        <dt>{w.colVersion}</dt>
        <dd>
          {w.foundVersion(found.version, found.current_version)} —{" "}
          {found.version_courante ? w.foundCurrent : w.foundOld(found.current_version)}
        </dd>
        <dt>{w.generatedOn}</dt>
        <dd>{found.genere_le ? formatDate(found.genere_le, lang) : w.none}</dd>
        <dt>{w.state}</dt>
        <dd>{found.synchro_etat ? (w.states[found.synchro_etat] ?? found.synchro_etat) : w.none}</dd>
        <dt>{w.foundFormat}</dt>
        <dd>{found.format?.toUpperCase() ?? w.none}</dd>
        <dt>{w.fingerprint}</dt>
        <dd className="fingerprint">{found.empreinte}</dd>
      </dl>
    </div>
  );
}
