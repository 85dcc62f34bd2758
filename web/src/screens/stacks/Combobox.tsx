import { type KeyboardEvent, type ReactNode, useId, useState } from "react";

export interface ComboboxProps<T> {
  label: string;
  /** The text typed (the parent debounces it into its query). */
  text: string;
  onText(text: string): void;
  /** The suggestions for the text, or undefined while none are asked for (too short) or coming. */
  options: T[] | undefined;
  loading?: boolean;
  optionKey(option: T): string;
  renderOption(option: T): ReactNode;
  /** The words of an option read back into the input once chosen. */
  optionText(option: T): string;
  onPick(option: T): void;
  /** Said when the suggestions came back empty. */
  noneText: string;
  loadingText: string;
  hint?: string;
  disabled?: boolean;
}

/**
 * An editable combobox with a list of suggestions (WAI-ARIA APG "combobox with listbox popup",
 * list autocomplete): ↓/↑ move the active option (aria-activedescendant; the focus stays in the
 * input), Enter picks it, Escape closes the list (again: clears the text), Tab leaves.
 */
export function Combobox<T>(p: ComboboxProps<T>) {
  const id = useId();
  const listId = `${id}-list`;
  const hintId = `${id}-hint`;
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(-1);
  const options = p.options ?? [];
  const expanded = open && (options.length > 0 || p.options !== undefined || !!p.loading);

  const pick = (o: T) => {
    p.onPick(o);
    p.onText(p.optionText(o));
    setOpen(false);
    setActive(-1);
  };

  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>) => {
    switch (e.key) {
      case "ArrowDown":
        e.preventDefault();
        setOpen(true);
        if (options.length) setActive((a) => (a + 1) % options.length);
        break;
      case "ArrowUp":
        e.preventDefault();
        setOpen(true);
        if (options.length) setActive((a) => (a <= 0 ? options.length - 1 : a - 1));
        break;
      case "Enter":
        if (expanded && active >= 0 && options[active]) {
          e.preventDefault();
          pick(options[active]);
        }
        break;
      case "Escape":
        if (expanded) {
          e.preventDefault();
          setOpen(false);
          setActive(-1);
        } else if (p.text) {
          e.preventDefault();
          p.onText("");
        }
        break;
      case "Tab":
        setOpen(false);
        break;
    }
  };

  return (
    <div className="combobox">
      <label htmlFor={id}>{p.label}</label>
      <input
        id={id}
        type="text"
        role="combobox"
        autoComplete="off"
        aria-autocomplete="list"
        aria-expanded={expanded}
        aria-controls={listId}
        aria-activedescendant={expanded && active >= 0 ? `${id}-opt-${active}` : undefined}
        aria-describedby={p.hint ? hintId : undefined}
        value={p.text}
        disabled={p.disabled}
        onChange={(e) => {
          p.onText(e.target.value);
          setOpen(true);
          setActive(-1);
        }}
        onKeyDown={onKeyDown}
        onBlur={() => setOpen(false)}
      />
      {p.hint && (
        <span id={hintId} className="sub">
          {p.hint}
        </span>
      )}
      <div id={listId} role="listbox" aria-label={p.label} className="combobox-list" hidden={!expanded}>
        {options.map((o, i) => (
          // biome-ignore lint/a11y/useKeyWithClickEvents: the keys are the input's (aria-activedescendant): the focus never leaves it.
          <div
            key={p.optionKey(o)}
            id={`${id}-opt-${i}`}
            role="option"
            tabIndex={-1}
            aria-selected={i === active}
            className={i === active ? "active" : undefined}
            // Mouse down would blur the input (closing the list) before the click.
            onMouseDown={(e) => e.preventDefault()}
            onClick={() => pick(o)}
          >
            {p.renderOption(o)}
          </div>
        ))}
      </div>
      <span className="visually-hidden" role="status">
        {!expanded ? "" : p.loading && !options.length ? p.loadingText : p.options && !options.length ? p.noneText : ""}
      </span>
      {expanded && p.options && !options.length && !p.loading && (
        <p className="combobox-none muted" aria-hidden="true">
          {p.noneText}
        </p>
      )}
    </div>
  );
}
