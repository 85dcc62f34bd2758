import type { Fault } from "../api/faults";

/** The faults of a refused document, one row each: where (JSON pointer, line, the whole document) and what. */
export function Faults({
  faults,
  title,
  caption,
  whereLabel,
  whatLabel,
  line,
  whole,
}: {
  faults: Fault[];
  title: string;
  caption: string;
  whereLabel: string;
  whatLabel: string;
  /** « ligne N » from the N of a `line N` place. */
  line(n: string): string;
  /** The words for a fault of the whole document. */
  whole: string;
}) {
  return (
    <div role="alert" className="error faults">
      <p>
        <strong>{title}</strong>
      </p>
      <div className="table-wrap">
        <table>
          <caption className="visually-hidden">{caption}</caption>
          <thead>
            <tr>
              <th scope="col">{whereLabel}</th>
              <th scope="col">{whatLabel}</th>
            </tr>
          </thead>
          <tbody>
            {faults.map((f, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: the faults have no id; the list is the server's, in its order.
              <tr key={i}>
                <td className="mono">{f.where === null ? whole : f.where.startsWith("line ") ? line(f.where.slice(5)) : f.where}</td>
                <td>{f.message}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}
