import { type DragEvent, useId, useState } from "react";

/**
 * A file dropped on the zone or chosen with its file input (one file). The screen gives its words;
 * `disabled` (a role that may not write) turns both off, `describedBy` says why.
 */
export function FileDrop(props: {
  legend: string;
  or: string;
  choose: string;
  /** The input's `accept`: extensions and media types. */
  accept: string;
  hint?: string;
  disabled?: boolean;
  describedBy?: string;
  testId?: string;
  onFile(file: File): void;
}) {
  const inputId = useId();
  const [over, setOver] = useState(false);
  const drop = (e: DragEvent) => {
    e.preventDefault();
    setOver(false);
    if (props.disabled) return;
    const file = e.dataTransfer.files[0];
    if (file) props.onFile(file);
  };
  return (
    <fieldset
      className={`dropzone${over ? " dropzone-over" : ""}`}
      data-testid={props.testId}
      disabled={props.disabled}
      aria-describedby={props.describedBy}
      onDragOver={(e) => {
        e.preventDefault();
        if (!props.disabled) setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={drop}
    >
      <legend>{props.legend}</legend>
      <p>
        {props.or}{" "}
        <input
          id={inputId}
          type="file"
          className="visually-hidden"
          accept={props.accept}
          disabled={props.disabled}
          onChange={(e) => {
            const file = e.target.files?.[0];
            if (file) props.onFile(file);
            e.target.value = "";
          }}
        />
        <label htmlFor={inputId} className={`button-secondary file-label${props.disabled ? " file-label-disabled" : ""}`}>
          {props.choose}
        </label>
      </p>
      {props.hint && <p className="sub">{props.hint}</p>}
    </fieldset>
  );
}
