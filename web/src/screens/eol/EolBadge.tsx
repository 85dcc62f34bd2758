import { formatDay } from "./dates";
import { useI18n, useWords } from "../../i18n/i18n";
import { EOL_TONE, dateOf, eolStatus, parisToday } from "./status";
import { words } from "./words";

/** A cycle's EOL status as a badge, its dates in the tooltip and for screen readers. */
export function EolBadge({
  cycle,
  today = parisToday(),
}: {
  cycle: { eol: string | boolean | null; support: string | boolean | null };
  today?: string;
}) {
  const w = useWords(words);
  const { lang } = useI18n();
  const status = eolStatus(cycle, today);
  const eol = dateOf(cycle.eol);
  const support = dateOf(cycle.support);
  const details = [support && w.supportEnds(formatDay(support, lang)), eol && w.eolOn(formatDay(eol, lang))].filter(Boolean).join(" · ");
  return (
    <span className={`badge badge-${EOL_TONE[status]}`} title={details || undefined}>
      {w.status[status]}
      {details && <span className="visually-hidden"> ({details})</span>}
    </span>
  );
}
