import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useId, useState } from "react";
import { api, data } from "../../api/client";
import type { components } from "../../api/schema";
import { useWords } from "../../i18n/i18n";
import { PALETTE, words } from "./words";

type Tag = components["schemas"]["TagBrief"];
const BASE = "/api/v1/organizations/{org_id}/projects/{project_id}/tags";

/**
 * Create, rename, recolour and delete the project's tags, where tags are used (inbox bulk bar,
 * cases list, case page): a disclosure, closed by default, so that the screen stays as it was. The
 * colour is chosen by name from a palette; a colour set through the API shows as "custom".
 */
export function TagManager({ orgId, projectId, tags }: { orgId: string; projectId: string; tags: Tag[] }) {
  const w = useWords(words);
  const id = useId();
  const queryClient = useQueryClient();
  const path = { org_id: orgId, project_id: projectId };
  const [message, setMessage] = useState("");
  const [name, setName] = useState("");
  const [color, setColor] = useState(PALETTE[0]!);
  // A rename, recolour or deletion shows on every list that carries the tag: everything of the project is refetched.
  const refresh = () => queryClient.invalidateQueries();
  const create = useMutation({
    mutationFn: (body: { name: string; color: string }) => data(api.POST(BASE, { params: { path }, body })),
    onSuccess: async (t) => {
      setName("");
      setMessage(w.created(t.name));
      await queryClient.invalidateQueries({ queryKey: ["tags", projectId] });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (name.trim()) create.mutate({ name: name.trim(), color });
  };
  return (
    <details className="tag-manager">
      <summary>{w.manage(tags.length)}</summary>
      {tags.length === 0 && <p className="muted">{w.none}</p>}
      {tags.length > 0 && (
        <ul className="tag-manager-list">
          {tags.map((t) => (
            <TagRow key={`${t.id}${t.name}${t.color}`} tag={t} path={path} onDone={(text) => setMessage(text)} refresh={refresh} />
          ))}
        </ul>
      )}
      <form className="tag-manager-new" onSubmit={submit} aria-labelledby={`${id}-h`}>
        <span id={`${id}-h`} className="tag-manager-title">
          {w.newTag}
        </span>
        <label htmlFor={`${id}-n`}>{w.name}</label>
        <input id={`${id}-n`} value={name} maxLength={50} required onChange={(e) => setName(e.target.value)} />
        <ColorSelect id={`${id}-c`} label={w.color} value={color} onChange={setColor} />
        <button type="submit" className="button-secondary" disabled={!name.trim() || create.isPending}>
          {w.create}
        </button>
      </form>
      {message && (
        <p role="status" className="muted">
          {message}
        </p>
      )}
      {create.error && (
        <p role="alert" className="error">
          {create.error.message}
        </p>
      )}
    </details>
  );
}

function TagRow(props: { tag: Tag; path: { org_id: string; project_id: string }; onDone(text: string): void; refresh(): Promise<void> }) {
  const { tag } = props;
  const w = useWords(words);
  const id = useId();
  const [name, setName] = useState(tag.name);
  const [color, setColor] = useState(tag.color);
  const [confirming, setConfirming] = useState(false);
  const params = { path: { ...props.path, tag_id: tag.id } };
  const save = useMutation({
    mutationFn: () => data(api.PATCH(`${BASE}/{tag_id}`, { params, body: { name: name.trim(), color } })),
    onSuccess: async (t) => {
      props.onDone(w.saved(t.name));
      await props.refresh();
    },
  });
  const remove = useMutation({
    mutationFn: () => data(api.DELETE(`${BASE}/{tag_id}`, { params })),
    onSuccess: async () => {
      props.onDone(w.removed(tag.name));
      await props.refresh();
    },
  });
  const changed = name.trim() !== tag.name || color !== tag.color;
  const error = save.error ?? remove.error;
  return (
    <li className="tag-manager-row">
      <span className="tag-swatch" style={{ background: color }} aria-hidden="true" />
      <input aria-label={w.nameOf(tag.name)} id={`${id}-n`} value={name} maxLength={50} onChange={(e) => setName(e.target.value)} />
      <ColorSelect id={`${id}-c`} label={w.colorOf(tag.name)} hiddenLabel value={color} onChange={setColor} />
      <button
        type="button"
        className="button-secondary"
        disabled={!changed || !name.trim() || save.isPending}
        onClick={() => save.mutate()}
      >
        {w.save}
      </button>
      {confirming ? (
        <>
          <button type="button" className="button-danger" disabled={remove.isPending} onClick={() => remove.mutate()}>
            {w.confirmRemove(tag.name)}
          </button>
          <button type="button" className="button-secondary" onClick={() => setConfirming(false)}>
            {w.cancel}
          </button>
        </>
      ) : (
        <button type="button" className="button-secondary" aria-label={w.removeNamed(tag.name)} onClick={() => setConfirming(true)}>
          {w.remove}
        </button>
      )}
      {error && (
        <span role="alert" className="error">
          {error.message}
        </span>
      )}
    </li>
  );
}

function ColorSelect(props: { id: string; label: string; hiddenLabel?: boolean; value: string; onChange(v: string): void }) {
  const w = useWords(words);
  const known = PALETTE.includes(props.value.toLowerCase());
  return (
    <>
      {!props.hiddenLabel && <label htmlFor={props.id}>{props.label}</label>}
      <select
        id={props.id}
        aria-label={props.hiddenLabel ? props.label : undefined}
        value={known ? props.value.toLowerCase() : props.value}
        onChange={(e) => props.onChange(e.target.value)}
      >
        {!known && <option value={props.value}>{w.custom(props.value)}</option>}
        {PALETTE.map((hex) => (
          <option key={hex} value={hex}>
            {w.colors[hex]}
          </option>
        ))}
      </select>
    </>
  );
}
