import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { type FormEvent, useId, useState } from "react";
import { api, data } from "../../api/client";
import type { components } from "../../api/schema";
import { useI18n, useWords } from "../../i18n/i18n";
import { errorText, roleAtLeast, useSettings } from "./access";
import { NeedsRole } from "./Settings";
import { words } from "./words";

/** The organization: its facts, renaming it (owners), creating a project (admins). */
export function Organization() {
  const w = useWords(words);
  const { t } = useI18n();
  const { org } = useSettings();
  return (
    <section aria-labelledby="org-title" className="settings-panel">
      <h2 id="org-title">{w.orgTitle}</h2>
      <dl className="facts">
        <dt>{w.orgName}</dt>
        <dd>{org.name}</dd>
        <dt>{w.orgRole}</dt>
        <dd>{t.role[org.role]}</dd>
        <dt>{w.orgKind}</dt>
        <dd>{org.is_personal ? w.orgPersonal : w.orgShared}</dd>
        <dt>{w.orgProjects}</dt>
        <dd>{org.projects.map((p) => p.name).join(", ") || w.none}</dd>
      </dl>
      <Rename />
      <CreateProject />
    </section>
  );
}

function Rename() {
  const w = useWords(words);
  const { org, role } = useSettings();
  const queryClient = useQueryClient();
  const id = useId();
  const [done, setDone] = useState("");
  const allowed = role === "owner";
  const rename = useMutation({
    mutationFn: (name: string) =>
      data(api.PATCH("/api/v1/organizations/{org_id}", { params: { path: { org_id: org.id } }, body: { name } })),
    onSuccess: async (renamed) => {
      setDone(w.renamed(renamed.name));
      // The name is the session's (switcher, this screen).
      await queryClient.invalidateQueries({ queryKey: ["session"] });
    },
  });
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    rename.mutate(String(new FormData(e.currentTarget).get("name") ?? ""));
  };
  return (
    <form className="settings-form" onSubmit={submit} aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>{w.rename}</h3>
      {!allowed && <NeedsRole id={`${id}-why`} what={w.whatRename} least="owner" />}
      <div className="field">
        <label htmlFor={id}>{w.newName}</label>
        <input
          id={id}
          name="name"
          required
          maxLength={200}
          defaultValue={org.name}
          disabled={!allowed}
          aria-describedby={allowed ? undefined : `${id}-why`}
        />
      </div>
      <p role="status" className="status">
        {done}
      </p>
      {rename.isError && (
        <p role="alert" className="error">
          {errorText(rename.error, w.genericError)}
        </p>
      )}
      <button type="submit" className="button-primary" disabled={!allowed || rename.isPending}>
        {rename.isPending ? w.saving : w.rename}
      </button>
    </form>
  );
}

function CreateProject() {
  const w = useWords(words);
  const { org, role } = useSettings();
  const queryClient = useQueryClient();
  const id = useId();
  const [created, setCreated] = useState<components["schemas"]["ProjectItem"] | null>(null);
  const allowed = roleAtLeast(role, "admin");
  const create = useMutation({
    mutationFn: (body: components["schemas"]["ProjectIn"]) =>
      data(api.POST("/api/v1/organizations/{org_id}/projects", { params: { path: { org_id: org.id } }, body })),
    onSuccess: async (project, _body) => {
      setCreated(project);
      // The switcher lists the session's projects.
      await queryClient.invalidateQueries({ queryKey: ["session"] });
    },
  });
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = e.currentTarget;
    const f = new FormData(form);
    const description = String(f.get("description") ?? "").trim();
    create.mutate({ name: String(f.get("name") ?? ""), ...(description && { description }) }, { onSuccess: () => form.reset() });
  };
  return (
    <form className="settings-form" onSubmit={submit} aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>{w.createProject}</h3>
      {!allowed && <NeedsRole id={`${id}-why`} what={w.whatProject} least="admin" />}
      <div className="field">
        <label htmlFor={`${id}-name`}>{w.projectName}</label>
        <input
          id={`${id}-name`}
          name="name"
          required
          maxLength={200}
          disabled={!allowed}
          aria-describedby={allowed ? undefined : `${id}-why`}
        />
      </div>
      <div className="field">
        <label htmlFor={`${id}-description`}>{w.projectDescription}</label>
        <textarea id={`${id}-description`} name="description" maxLength={2000} rows={2} disabled={!allowed} />
      </div>
      <p role="status" className="status">
        {created && (
          <>
            {w.projectCreated(created.name)}{" "}
            <Link to="/p/$projectId" params={{ projectId: created.id }}>
              {w.openProject}
            </Link>
          </>
        )}
      </p>
      {create.isError && (
        <p role="alert" className="error">
          {errorText(create.error, w.genericError)}
        </p>
      )}
      <button type="submit" className="button-primary" disabled={!allowed || create.isPending}>
        {w.projectCreate}
      </button>
    </form>
  );
}
