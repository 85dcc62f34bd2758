import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, type ReactNode, useId, useState } from "react";
import { api, data } from "../../api/client";
import type { components } from "../../api/schema";
import type { Role } from "../../api/session";
import { useI18n, useWords } from "../../i18n/i18n";
import { errorText, type Project, roleAtLeast, useSettings } from "./access";
import { NeedsRole } from "./Settings";
import { words } from "./words";

type Schemas = components["schemas"];

/**
 * The current project's settings, each with the role its change needs (the server's, from the
 * route's scope): notification language (admin, workflows-write), alert backfill (admin,
 * stacks-write), exception warning (member, cases-write).
 */
export function ProjectSettings() {
  const w = useWords(words);
  const { project } = useSettings();
  return project ? (
    <ProjectSettingsOf project={project} />
  ) : (
    <section aria-labelledby="project-title" className="settings-panel">
      <h2 id="project-title">{w.tabProject}</h2>
      <p>{w.noProject}</p>
    </section>
  );
}

function ProjectSettingsOf({ project }: { project: Project }) {
  const w = useWords(words);
  const { org } = useSettings();
  const path = { org_id: org.id, project_id: project.id };
  const P = "/api/v1/organizations/{org_id}/projects/{project_id}" as const;
  return (
    <section aria-labelledby="project-title" className="settings-panel">
      <h2 id="project-title">{w.projectTitle(project.name)}</h2>
      <p className="muted">{w.projectHint}</p>
      <div className="settings-cards">
        <SettingForm<Schemas["NotificationSettingsOut"]>
          title={w.notifTitle}
          intro={w.notifIntro}
          least="admin"
          queryKey={["notification-settings", project.id]}
          load={() => data(api.GET(`${P}/notification-settings`, { params: { path } }))}
          save={(body) => data(api.PATCH(`${P}/notification-settings`, { params: { path }, body }))}
        >
          {(value, set, field) => (
            <div className="field">
              <label htmlFor={field.id}>{w.notifLanguage}</label>
              <select {...field} value={value.language} onChange={(e) => set({ language: e.target.value as "fr" | "en" })}>
                <option value="fr">{w.langFr}</option>
                <option value="en">{w.langEn}</option>
              </select>
            </div>
          )}
        </SettingForm>
        <SettingForm<Schemas["AlertSettingsOut"]>
          title={w.alertTitle}
          intro={w.alertIntro}
          least="admin"
          queryKey={["alert-settings", project.id]}
          load={() => data(api.GET(`${P}/alert-settings`, { params: { path } }))}
          save={(body) => data(api.PATCH(`${P}/alert-settings`, { params: { path }, body }))}
        >
          {(value, set, field) => (
            <>
              <fieldset disabled={field.disabled}>
                <legend>{w.backfill}</legend>
                {(["recent", "all"] as const).map((b) => (
                  <label key={b} className="check">
                    <input
                      type="radio"
                      name={`${field.id}-backfill`}
                      value={b}
                      checked={value.alert_backfill === b}
                      onChange={() => set({ alert_backfill: b })}
                    />{" "}
                    {b === "recent" ? w.backfillRecent : w.backfillAll}
                  </label>
                ))}
              </fieldset>
              <div className="field">
                <label htmlFor={field.id}>{w.backfillDays}</label>
                <input
                  {...field}
                  type="number"
                  min={1}
                  max={3650}
                  required
                  value={value.alert_backfill_days}
                  onChange={(e) => set({ alert_backfill_days: e.target.valueAsNumber })}
                />
              </div>
            </>
          )}
        </SettingForm>
        <SettingForm<Schemas["CaseSettingsOut"]>
          title={w.caseTitle}
          intro={w.caseIntro}
          least="member"
          queryKey={["case-settings", project.id]}
          load={() => data(api.GET(`${P}/case-settings`, { params: { path } }))}
          save={(body) => data(api.PATCH(`${P}/case-settings`, { params: { path }, body }))}
        >
          {(value, set, field) => (
            <div className="field">
              <label htmlFor={field.id}>{w.warningDays}</label>
              <input
                {...field}
                type="number"
                min={0}
                max={365}
                required
                value={value.exception_warning_days}
                onChange={(e) => set({ exception_warning_days: e.target.valueAsNumber })}
              />
            </div>
          )}
        </SettingForm>
      </div>
    </section>
  );
}

interface FieldProps {
  id: string;
  disabled: boolean;
  "aria-describedby"?: string;
}

/**
 * One project setting: loaded, shown to every role, changed and saved by `least` and above (others
 * see it disabled, with the reason); the server's refusal (403, 422) shown as it says it.
 */
function SettingForm<T extends object>(props: {
  title: string;
  intro: string;
  least: Role;
  queryKey: readonly unknown[];
  load: () => Promise<T>;
  save: (value: T) => Promise<T>;
  children: (value: T, set: (change: Partial<T>) => void, field: FieldProps) => ReactNode;
}) {
  const w = useWords(words);
  const { t } = useI18n();
  const { role } = useSettings();
  const id = useId();
  const queryClient = useQueryClient();
  const loaded = useQuery({ queryKey: props.queryKey, queryFn: props.load });
  const [draft, setDraft] = useState<T | null>(null);
  const [saved, setSaved] = useState(false);
  const save = useMutation({
    mutationFn: props.save,
    onSuccess: (value) => {
      queryClient.setQueryData(props.queryKey, value);
      setDraft(null);
      setSaved(true);
    },
  });
  const allowed = roleAtLeast(role, props.least);
  const value = draft ?? loaded.data;
  const set = (change: Partial<T>) => {
    setSaved(false);
    setDraft({ ...(value as T), ...change });
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (value) save.mutate(value);
  };
  const field: FieldProps = { id: `${id}-field`, disabled: !allowed, ...(!allowed && { "aria-describedby": `${id}-why` }) };
  return (
    <form className="settings-form" onSubmit={submit} aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>{props.title}</h3>
      <p className="muted">{props.intro}</p>
      {!allowed && <NeedsRole id={`${id}-why`} what={w.whatChange} least={props.least} />}
      {loaded.isPending && <p>{t.loading}</p>}
      {loaded.isError && (
        <p role="alert" className="error">
          {errorText(loaded.error, w.genericError)}
        </p>
      )}
      {value && props.children(value, set, field)}
      <p role="status" className="status">
        {saved ? w.saved : ""}
      </p>
      {save.isError && (
        <p role="alert" className="error">
          {errorText(save.error, w.genericError)}
        </p>
      )}
      {value && (
        <button type="submit" className="button-primary" disabled={!allowed || !draft || save.isPending}>
          {save.isPending ? w.saving : w.save}
        </button>
      )}
    </form>
  );
}
