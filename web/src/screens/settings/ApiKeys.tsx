import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useId, useRef, useState } from "react";
import { api, data } from "../../api/client";
import type { components } from "../../api/schema";
import { formatDate } from "../../format";
import { useI18n, useWords } from "../../i18n/i18n";
import { errorText, type Scope, roleAtLeast, useSettings } from "./access";
import { Dialog } from "./Dialog";
import { NeedsRole } from "./Settings";
import { words } from "./words";

type Key = components["schemas"]["ApiKeyItem"];
type Created = components["schemas"]["ApiKeyCreated"];

const keysQuery = (orgId: string) => ({
  queryKey: ["api-keys", orgId],
  queryFn: () =>
    data(api.GET("/api/v1/organizations/{org_id}/api-keys", { params: { path: { org_id: orgId }, query: { include_revoked: true } } })),
});

/** The organization's API keys (admins): list, create (the key shown once), revoke. */
export function ApiKeys() {
  const w = useWords(words);
  const { role } = useSettings();
  return (
    <section aria-labelledby="keys-title" className="settings-panel">
      <h2 id="keys-title">{w.keysTitle}</h2>
      <p className="muted">{w.keysIntro}</p>
      {roleAtLeast(role, "admin") ? <KeysOf /> : <NeedsRole what={w.whatKeys} least="admin" />}
    </section>
  );
}

function KeysOf() {
  const w = useWords(words);
  const { t, lang } = useI18n();
  const { org } = useSettings();
  const keys = useQuery(keysQuery(org.id));
  const [created, setCreated] = useState<Created | null>(null);
  const [revoking, setRevoking] = useState<Key | null>(null);
  const [status, setStatus] = useState("");
  const projectName = (id: string) => org.projects.find((p) => p.id === id)?.name ?? id;
  return (
    <>
      <p role="status" className="status">
        {status}
      </p>
      {keys.isPending && <p>{t.loading}</p>}
      {keys.isError && (
        <p role="alert" className="error">
          {errorText(keys.error, w.genericError)}
        </p>
      )}
      {keys.data && (
        <div className="table-wrap">
          <table>
            <caption>{w.keysCaption}</caption>
            <thead>
              <tr>
                <th scope="col">{w.colName}</th>
                <th scope="col">{w.colPrefix}</th>
                <th scope="col">{w.colScopes}</th>
                <th scope="col">{w.colProjects}</th>
                <th scope="col">{w.colCreated}</th>
                <th scope="col">{w.colLastUsed}</th>
                <th scope="col">{w.colState}</th>
                <th scope="col">{w.colActions}</th>
              </tr>
            </thead>
            <tbody>
              {keys.data.length === 0 && (
                <tr>
                  <td colSpan={8}>{w.noKeys}</td>
                </tr>
              )}
              {keys.data.map((k) => (
                <tr key={k.id} className={k.revoked_at ? "revoked" : undefined}>
                  <th scope="row">{k.name}</th>
                  <td>
                    <code>{k.prefix}…</code>
                  </td>
                  <td>{k.scopes.length ? k.scopes.map((s) => w.scope[s as Scope] ?? s).join(", ") : w.readOnly}</td>
                  <td>{k.project_ids?.length ? k.project_ids.map(projectName).join(", ") : w.allProjects}</td>
                  <td>{formatDate(k.created_at, lang)}</td>
                  <td>{k.last_used_at ? formatDate(k.last_used_at, lang) : w.never}</td>
                  <td>
                    {k.revoked_at ? (
                      <span className="badge badge-idle">{w.revokedOn(formatDate(k.revoked_at, lang))}</span>
                    ) : (
                      <span className="badge badge-ok">{w.active}</span>
                    )}
                  </td>
                  <td>
                    {!k.revoked_at && (
                      <button type="button" className="button-danger" aria-label={w.revokeLabel(k.name)} onClick={() => setRevoking(k)}>
                        {w.revoke}
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <CreateKey onCreated={setCreated} />
      {created && <CreatedKey created={created} onClose={() => setCreated(null)} />}
      {revoking && (
        <RevokeKey
          apiKey={revoking}
          onDone={(message) => {
            setRevoking(null);
            if (message) setStatus(message);
          }}
        />
      )}
    </>
  );
}

function CreateKey({ onCreated }: { onCreated: (created: Created) => void }) {
  const w = useWords(words);
  const { org } = useSettings();
  const queryClient = useQueryClient();
  const nameId = useId();
  const form = useRef<HTMLFormElement>(null);
  const scopes = Object.keys(w.scope) as Scope[];
  const create = useMutation({
    mutationFn: (body: components["schemas"]["ApiKeyIn"]) =>
      data(api.POST("/api/v1/organizations/{org_id}/api-keys", { params: { path: { org_id: org.id } }, body })),
    onSuccess: (created) => {
      form.current?.reset();
      void queryClient.invalidateQueries({ queryKey: ["api-keys", org.id] });
      onCreated(created);
    },
  });
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    create.mutate({
      name: String(f.get("name") ?? ""),
      scopes: f.getAll("scopes").map(String) as Scope[],
      project_ids: f.getAll("projects").map(String),
    });
  };
  return (
    <form ref={form} className="settings-form" onSubmit={submit} aria-labelledby="key-create-title">
      <h3 id="key-create-title">{w.createKey}</h3>
      <div className="field">
        <label htmlFor={nameId}>{w.keyName}</label>
        <input id={nameId} name="name" required maxLength={100} aria-describedby={`${nameId}-hint`} />
        <span id={`${nameId}-hint`} className="sub">
          {w.keyNameHint}
        </span>
      </div>
      <fieldset>
        <legend>{w.scopesLegend}</legend>
        {scopes.map((s) => (
          <label key={s} className="check">
            <input type="checkbox" name="scopes" value={s} /> {w.scope[s]} <code>{s}</code>
          </label>
        ))}
      </fieldset>
      <fieldset aria-describedby={`${nameId}-projects`}>
        <legend>{w.projectsLegend}</legend>
        {org.projects.map((p) => (
          <label key={p.id} className="check">
            <input type="checkbox" name="projects" value={p.id} /> {p.name}
          </label>
        ))}
        <span id={`${nameId}-projects`} className="sub">
          {w.projectsHint}
        </span>
      </fieldset>
      {create.isError && (
        <p role="alert" className="error">
          {errorText(create.error, w.genericError, { name: w.keyName, scopes: w.scopesLegend, project_ids: w.projectsLegend })}
        </p>
      )}
      <button type="submit" className="button-primary" disabled={create.isPending}>
        {create.isPending ? w.creating : w.createKey}
      </button>
    </form>
  );
}

/** The new key, shown this once: copy it, then it is gone (only its prefix stays listed). */
export function CreatedKey({ created, onClose }: { created: Created; onClose: () => void }) {
  const w = useWords(words);
  const keyId = useId();
  const input = useRef<HTMLInputElement>(null);
  const [copy, setCopy] = useState<"" | "ok" | "failed">("");
  const copyKey = async () => {
    try {
      await navigator.clipboard.writeText(created.key);
      setCopy("ok");
    } catch {
      input.current?.select();
      setCopy("failed");
    }
  };
  return (
    <Dialog title={w.createdTitle} onClose={onClose}>
      <p className="notice" id={`${keyId}-warning`}>
        {w.createdWarning}
      </p>
      <div className="field">
        <label htmlFor={keyId}>{w.createdKey(created.name)}</label>
        <input
          ref={input}
          id={keyId}
          className="secret"
          readOnly
          value={created.key}
          aria-describedby={`${keyId}-warning`}
          onFocus={(e) => e.currentTarget.select()}
        />
      </div>
      <p role="status" className="status">
        {copy === "ok" ? w.copied : copy === "failed" ? w.copyFailed : ""}
      </p>
      <div className="dialog-actions">
        <button type="button" className="button-secondary" onClick={() => void copyKey()}>
          {w.copy}
        </button>
        <button type="button" className="button-primary" onClick={onClose}>
          {w.createdClose}
        </button>
      </div>
    </Dialog>
  );
}

function RevokeKey({ apiKey, onDone }: { apiKey: Key; onDone: (message?: string) => void }) {
  const w = useWords(words);
  const { org } = useSettings();
  const queryClient = useQueryClient();
  const revoke = useMutation({
    mutationFn: () =>
      data(api.DELETE("/api/v1/organizations/{org_id}/api-keys/{key_id}", { params: { path: { org_id: org.id, key_id: apiKey.id } } })),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: ["api-keys", org.id] });
      onDone(w.revoked(apiKey.name));
    },
  });
  return (
    <Dialog title={w.revokeTitle} onClose={() => onDone()}>
      <p>{w.revokeText(apiKey.name, apiKey.prefix)}</p>
      {revoke.isError && (
        <p role="alert" className="error">
          {errorText(revoke.error, w.genericError)}
        </p>
      )}
      <div className="dialog-actions">
        <button type="button" className="button-secondary" onClick={() => onDone()}>
          {w.cancel}
        </button>
        <button type="button" className="button-danger" onClick={() => revoke.mutate()} disabled={revoke.isPending}>
          {w.revoke}
        </button>
      </div>
    </Dialog>
  );
}
