import { type ReactNode, useEffect, useId, useRef } from "react";

const FOCUSABLE = "button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), a[href]";

/**
 * A modal dialog: focus moves into it (its `autoFocus` control, else the first) and stays there
 * (Tab cycles), Escape calls `onClose`, and focus returns where it was on closing.
 */
export function Dialog({ title, children, onClose }: { title: string; children: ReactNode; onClose: () => void }) {
  const id = useId();
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const before = document.activeElement as HTMLElement | null;
    const box = ref.current;
    if (box && !box.contains(document.activeElement)) box.querySelector<HTMLElement>(FOCUSABLE)?.focus();
    return () => before?.focus?.();
  }, []);
  const onKeyDown = (e: React.KeyboardEvent) => {
    if (e.key === "Escape") {
      e.stopPropagation();
      onClose();
    } else if (e.key === "Tab" && ref.current) {
      const all = [...ref.current.querySelectorAll<HTMLElement>(FOCUSABLE)];
      const [first, last] = [all[0], all.at(-1)];
      if (e.shiftKey && document.activeElement === first) {
        e.preventDefault();
        last?.focus();
      } else if (!e.shiftKey && document.activeElement === last) {
        e.preventDefault();
        first?.focus();
      }
    }
  };
  return (
    <div className="dialog-backdrop">
      <div ref={ref} role="dialog" aria-modal="true" aria-labelledby={id} className="dialog" onKeyDown={onKeyDown}>
        <h2 id={id}>{title}</h2>
        {children}
      </div>
    </div>
  );
}
