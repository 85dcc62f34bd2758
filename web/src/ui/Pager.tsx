import type { ReactNode } from "react";
import { useI18n } from "../i18n/i18n";

/**
 * « Précédent · page N sur M · Suivant » under a list: the one pager of every paged screen.
 * `status` is the screen's own words for where the reader is (page, pages, total).
 */
export function Pager({
  page,
  pages,
  onPage,
  label,
  status,
}: {
  page: number;
  pages: number;
  onPage(page: number): void;
  /** The navigation landmark's name (screen readers list it). */
  label: string;
  status: ReactNode;
}) {
  const { t } = useI18n();
  return (
    <nav className="pager" aria-label={label}>
      <button type="button" className="button-secondary" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        {t.previousPage}
      </button>
      <span>{status}</span>
      <button type="button" className="button-secondary" disabled={page >= pages} onClick={() => onPage(page + 1)}>
        {t.nextPage}
      </button>
    </nav>
  );
}
