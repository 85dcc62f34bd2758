import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Link, useNavigate } from "@tanstack/react-router";
import { type FormEvent, useId, useState } from "react";
import { api, data } from "../../api/client";
import { useI18n, useWords } from "../../i18n/i18n";
import { eolStatus, parisToday } from "../eol/status";
import { errorText, useProject } from "./project";
import { stacksQuery } from "./queries";
import { NewStackFromSbom } from "./SbomImport";
import { words } from "./words";

/** `/p/$projectId/stacks`: the project's stacks, and a new one, empty or from an SBOM (admins). */
export function Stacks() {
  const { t } = useI18n();
  const w = useWords(words);
  const { path, canManage } = useProject();
  const stacks = useQuery(stacksQuery(path));
  const today = parisToday();
  return (
    <section aria-labelledby="stacks-title" className="screen">
      <h1 id="stacks-title">{w.title}</h1>
      <p className="muted">{w.intro}</p>
      {!canManage && <p className="notice">{w.readOnly}</p>}
      {stacks.isPending && <p role="status">{t.loading}</p>}
      {stacks.isError && (
        <div role="alert" className="error">
          {t.loadError}{" "}
          <button type="button" className="button-secondary" onClick={() => void stacks.refetch()}>
            {t.retry}
          </button>
        </div>
      )}
      {stacks.data &&
        (stacks.data.length === 0 ? (
          <p>{w.none}</p>
        ) : (
          <div className="table-wrap">
            <table>
              <caption>{w.caption}</caption>
              <thead>
                <tr>
                  <th scope="col">{w.colName}</th>
                  <th scope="col" className="num">
                    {w.colItems}
                  </th>
                  <th scope="col" className="num">
                    {w.colEol}
                  </th>
                </tr>
              </thead>
              <tbody>
                {stacks.data.map((s) => (
                  <tr key={s.id}>
                    <th scope="row">
                      <Link to="/p/$projectId/stacks/$stackId" params={{ projectId: path.project_id, stackId: s.id }}>
                        {s.name}
                      </Link>
                    </th>
                    <td className="num">{s.items.length}</td>
                    <td className="num">
                      {
                        s.items.filter((i) => i.eol && eolStatus(i.eol, today) !== "supported" && eolStatus(i.eol, today) !== "unknown")
                          .length
                      }
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ))}
      {canManage && <CreateStack />}
      <NewStackFromSbom />
    </section>
  );
}

function CreateStack() {
  const w = useWords(words);
  const id = useId();
  const { path } = useProject();
  const [name, setName] = useState("");
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const create = useMutation({
    mutationFn: () =>
      data(api.POST("/api/v1/organizations/{org_id}/projects/{project_id}/stacks", { params: { path }, body: { name, items: [] } })),
    onSuccess: async (stack) => {
      await queryClient.invalidateQueries({ queryKey: ["stacks", path.project_id], exact: true });
      await navigate({ to: "/p/$projectId/stacks/$stackId", params: { projectId: path.project_id, stackId: stack.id } });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (name.trim()) create.mutate();
  };
  return (
    <form className="panel" onSubmit={submit} aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{w.createTitle}</h2>
      <div className="form-row">
        <div className="field">
          <label htmlFor={id}>{w.name}</label>
          <input id={id} value={name} maxLength={100} required onChange={(e) => setName(e.target.value)} />
        </div>
        <button type="submit" className="button-primary" disabled={create.isPending}>
          {w.create}
        </button>
      </div>
      {create.isError && (
        <p role="alert" className="error">
          {errorText(create.error, w.saveError)}
        </p>
      )}
    </form>
  );
}
