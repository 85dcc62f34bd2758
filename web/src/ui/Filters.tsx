import { type FormEvent, type InputHTMLAttributes, type ReactNode, useId } from "react";
import { useI18n } from "../i18n/i18n";

// The filter fields of the inbox and the CVE search: one form that folds (the list comes first; at
// 1280×800 the open form took the first 600 px), the active filters as chips a click removes.

/** A search's values as the form gives them: a checkbox group's values as a list, a blank as nothing. */
export function formValues(form: HTMLFormElement): Record<string, unknown> {
  const data = new FormData(form);
  const out: Record<string, unknown> = {};
  for (const key of new Set(data.keys())) {
    const all = data.getAll(key).map((v) => String(v).trim());
    const group = form.querySelector(`input[type="checkbox"][name="${CSS.escape(key)}"]`);
    if (group) out[key] = all;
    else if (all[0]) out[key] = all[0];
  }
  return out;
}

/** One active filter: its words and what removing it leaves. */
export interface Chip {
  key: string;
  label: string;
  remove(): void;
}

/**
 * The chips of a search: one per value of a list, one per other value. `describe[key](value)` names
 * it (« Sévérité : critique »); a key without a description (the sort, the page) is no chip.
 */
export function chipsOf<S extends object>(
  search: S,
  describe: { [K in keyof S]?: (value: string) => string },
  apply: (next: S) => void,
): Chip[] {
  const chips: Chip[] = [];
  for (const [key, value] of Object.entries(search) as [keyof S & string, unknown][]) {
    const name = describe[key];
    if (!name || value === undefined || value === null || value === "") continue;
    if (Array.isArray(value)) {
      for (const one of value) {
        const rest = value.filter((v) => v !== one);
        chips.push({
          key: `${key}=${one}`,
          label: name(String(one)),
          remove: () => apply({ ...search, [key]: rest.length ? rest : undefined, page: undefined }),
        });
      }
    } else {
      chips.push({ key, label: name(String(value)), remove: () => apply({ ...search, [key]: undefined, page: undefined }) });
    }
  }
  return chips;
}

/**
 * The filter form: `lead` (the search box) always shown with « Filtrer », the other fields folded
 * (closed at first), the active filters as chips under it. Submitting gives `formValues` of the form.
 */
export function FilterPanel({
  label,
  lead,
  chips,
  onApply,
  onReset,
  children,
}: {
  label: string;
  lead: ReactNode;
  chips: Chip[];
  onApply(values: Record<string, unknown>): void;
  onReset(): void;
  children: ReactNode;
}) {
  const { t } = useI18n();
  function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    onApply(formValues(e.currentTarget));
  }
  return (
    <form className="filter-panel" aria-label={label} onSubmit={submit}>
      <div className="filter-bar">
        {lead}
        <div className="filter-actions">
          <button type="submit" className="button-primary">
            {t.applyFilters}
          </button>
          {chips.length > 0 && (
            <button type="button" className="button-secondary" onClick={onReset}>
              {t.resetFilters}
            </button>
          )}
        </div>
      </div>
      <details className="filter-fold">
        <summary>
          {t.moreFilters}
          {chips.length > 0 && <span className="tab-count"> ({t.activeFilters(chips.length)})</span>}
        </summary>
        <div className="inbox-filters">{children}</div>
      </details>
      {chips.length > 0 && (
        <ul className="chips" aria-label={t.activeFiltersList}>
          {chips.map((c) => (
            <li key={c.key} className="chip">
              <span>{c.label}</span>
              <button type="button" className="chip-remove" aria-label={t.removeFilter(c.label)} onClick={c.remove}>
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
    </form>
  );
}

/** A labelled input (text, search, number, date) whose name is the search key. */
export function InputFilter({ label, ...props }: { label: string; name: string } & InputHTMLAttributes<HTMLInputElement>) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input id={id} {...props} />
    </div>
  );
}

/** A labelled select: « any » (no filter) first, then the choices `[value, words]`. */
export function SelectFilter({
  label,
  name,
  value,
  any,
  choices,
}: {
  label: string;
  name: string;
  value: string | undefined;
  /** The words of « no filter »; absent: a choice is always made (a sort). */
  any?: string;
  choices: readonly (readonly [string, string])[];
}) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select id={id} name={name} defaultValue={value ?? ""}>
        {any !== undefined && <option value="">{any}</option>}
        {choices.map(([v, words]) => (
          <option key={v} value={v}>
            {words}
          </option>
        ))}
      </select>
    </div>
  );
}

/** A yes / no / any select over a boolean filter. */
export function YesNoFilter({ label, name, value, any }: { label: string; name: string; value: boolean | undefined; any?: string }) {
  const { t } = useI18n();
  return (
    <SelectFilter
      label={label}
      name={name}
      value={value === undefined ? "" : String(value)}
      any={any ?? t.anyValue}
      choices={[
        ["true", t.yes],
        ["false", t.no],
      ]}
    />
  );
}

/** A group of checkboxes: the values chosen form a list. */
export function CheckFilter({
  legend,
  name,
  values,
  choices,
}: {
  legend: string;
  name: string;
  values: readonly string[] | undefined;
  choices: readonly (readonly [string, string])[];
}) {
  return (
    <fieldset>
      <legend>{legend}</legend>
      {choices.map(([v, words]) => (
        <label key={v} className="check">
          <input type="checkbox" name={name} value={v} defaultChecked={values?.includes(v)} /> {words}
        </label>
      ))}
    </fieldset>
  );
}
