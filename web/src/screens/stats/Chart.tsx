import { useEffect, useId, useRef, useState } from "react";
import { useWords } from "../../i18n/i18n";
import { type ChartOption, init } from "./echarts";
import { words } from "./words";

/** A chart's data as a table: its text alternative. */
export interface ChartTable {
  columns: string[];
  rows: (string | number)[][];
}

/**
 * One chart drawn by ECharts on a canvas, with its text alternative: a caption saying what it shows
 * and a button that shows the same figures as a table. `data-drawn` is set once ECharts has
 * finished drawing (the end-to-end test and the benchmark wait for it).
 */
export function Chart({
  caption,
  option,
  table,
  height = 280,
}: {
  caption: string;
  option: ChartOption;
  table: ChartTable;
  height?: number;
}) {
  const w = useWords(words);
  const box = useRef<HTMLDivElement>(null);
  const chart = useRef<ReturnType<typeof init> | null>(null);
  const [drawn, setDrawn] = useState(false);
  const [showTable, setShowTable] = useState(false);
  const tableId = useId();

  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const instance = init(el, undefined, { renderer: "canvas" });
    instance.on("finished", () => setDrawn(true));
    chart.current = instance;
    const resize = new ResizeObserver(() => instance.resize());
    resize.observe(el);
    return () => {
      resize.disconnect();
      instance.dispose();
      chart.current = null;
    };
  }, []);

  // Declared after the effect that makes the instance: it runs after it.
  useEffect(() => {
    chart.current?.setOption({ animation: false, ...option }, true);
  }, [option]);

  return (
    <figure className="chart">
      <figcaption>{caption}</figcaption>
      <div ref={box} className="chart-canvas" style={{ height }} role="img" aria-label={caption} data-drawn={drawn ? "true" : "false"} />
      <button
        type="button"
        className="button-secondary"
        aria-expanded={showTable}
        aria-controls={tableId}
        onClick={() => setShowTable((s) => !s)}
      >
        {showTable ? w.hideTable : w.showTable}
      </button>
      <div id={tableId} className="table-wrap" hidden={!showTable}>
        {showTable && (
          <table>
            <caption>{caption}</caption>
            <thead>
              <tr>
                {table.columns.map((c, i) => (
                  <th key={c} scope="col" className={i > 0 ? "num" : undefined}>
                    {c}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {table.rows.map((row) => (
                <tr key={String(row[0])}>
                  {row.map((cell, i) =>
                    i === 0 ? (
                      <th key={table.columns[i]} scope="row">
                        {cell}
                      </th>
                    ) : (
                      <td key={table.columns[i]} className="num">
                        {cell}
                      </td>
                    ),
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
    </figure>
  );
}
