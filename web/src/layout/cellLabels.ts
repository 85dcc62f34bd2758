import { type RefObject, useEffect } from "react";

/**
 * Each body cell of the tables under `root` gets `data-label`, its column's header words: on a
 * narrow window the stylesheet draws a table's rows as cards whose cells say what they are
 * (styles.css, « tables become lists »). One observer for every screen, so no screen writes labels.
 */
export function useCellLabels(root: RefObject<HTMLElement | null>): void {
  useEffect(() => {
    const el = root.current;
    if (!el || typeof MutationObserver === "undefined") return;
    let pending = 0;
    const label = () => {
      pending = 0;
      for (const table of el.querySelectorAll("table")) labelTable(table);
    };
    const observer = new MutationObserver(() => {
      if (!pending) pending = requestAnimationFrame(label);
    });
    label();
    observer.observe(el, { childList: true, subtree: true, characterData: true });
    return () => {
      observer.disconnect();
      if (pending) cancelAnimationFrame(pending);
    };
  }, [root]);
}

/** Sets `data-label` on each body cell of `table` from the last header row (a colspan counts). */
export function labelTable(table: HTMLTableElement): void {
  // Selectors rather than rows/cells: the same code under happy-dom (component tests) and browsers.
  const head = [...table.querySelectorAll(":scope > thead > tr")].at(-1);
  if (!head) return;
  const names: string[] = [];
  for (const cell of head.querySelectorAll(":scope > th, :scope > td")) {
    const words = (cell.textContent ?? "").trim();
    for (let i = 0; i < span(cell); i++) names.push(words);
  }
  for (const row of table.querySelectorAll(":scope > tbody > tr")) {
    let col = 0;
    for (const cell of row.querySelectorAll(":scope > th, :scope > td")) {
      const name = names[col] ?? "";
      if (cell.getAttribute("data-label") !== name) cell.setAttribute("data-label", name);
      col += span(cell);
    }
  }
}

const span = (cell: Element) => Math.max(1, Number(cell.getAttribute("colspan")) || 1);
