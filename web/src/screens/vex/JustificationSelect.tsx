import { useWords } from "../../i18n/i18n";
import { JUSTIFICATIONS, type Justification, justificationUi, justificationWords } from "./justifications";

/**
 * A select of the five VEX justifications (the caller's label and « none » option), the chosen one
 * explained in a line below it (tied with aria-describedby).
 */
export function JustificationSelect({
  id,
  label,
  none,
  value,
  onChange,
  disabled,
  inline,
  explainAll,
}: {
  id: string;
  label: string;
  /** The empty option's words: no justification given. */
  none: string;
  value: Justification | "";
  onChange(value: Justification | ""): void;
  disabled?: boolean;
  /** In a bar (bulk changes): the label beside the select. */
  inline?: boolean;
  /** Below the select, all five explained (closed until opened). */
  explainAll?: boolean;
}) {
  const said = useWords(justificationWords);
  const ui = useWords(justificationUi);
  return (
    <div className={inline ? "field-inline vex-justification" : "field vex-justification"}>
      <label htmlFor={id}>{label}</label>
      <select
        id={id}
        value={value}
        disabled={disabled}
        aria-describedby={value ? `${id}-explain` : undefined}
        onChange={(e) => onChange(e.target.value as Justification | "")}
      >
        <option value="">{none}</option>
        {JUSTIFICATIONS.map((j) => (
          <option key={j} value={j}>
            {said[j].label}
          </option>
        ))}
      </select>
      {value && (
        <span id={`${id}-explain`} className="sub">
          {said[value].explain}
        </span>
      )}
      {explainAll && (
        <details className="vex-meanings">
          <summary>{ui.meanings}</summary>
          <dl>
            {JUSTIFICATIONS.map((j) => (
              <div key={j}>
                <dt>{said[j].label}</dt>
                <dd>{said[j].explain}</dd>
              </div>
            ))}
          </dl>
        </details>
      )}
    </div>
  );
}
