import type { Lang } from "./i18n/messages";

const LOCALES: Record<Lang, string> = { fr: "fr-FR", en: "en-GB" };

/** A date and time in the user's own time zone (the browser's), in the interface's language. */
export function formatDate(iso: string | Date, lang: Lang, opts: { timeZone?: string } = {}): string {
  return new Intl.DateTimeFormat(LOCALES[lang], { dateStyle: "medium", timeStyle: "short", ...opts }).format(new Date(iso));
}

/**
 * A day where the rule is Paris's (an exception expires at the end of a Paris day): the date in
 * Europe/Paris, stated as such, whatever the user's time zone.
 */
export function formatParisDate(iso: string | Date, lang: Lang): string {
  const day = new Intl.DateTimeFormat(LOCALES[lang], { dateStyle: "long", timeZone: "Europe/Paris" }).format(new Date(iso));
  return lang === "fr" ? `${day} (heure de Paris)` : `${day} (Paris time)`;
}

/** A duration in seconds, in words of its largest units ("2 h 5 min", "3 j"). */
export function formatDuration(seconds: number, lang: Lang): string {
  const units: [number, string, string][] = [
    [86_400, "j", "d"],
    [3_600, "h", "h"],
    [60, "min", "min"],
    [1, "s", "s"],
  ];
  let rest = Math.max(0, Math.round(seconds));
  const parts: string[] = [];
  for (const [size, fr, en] of units) {
    const n = Math.floor(rest / size);
    if (n > 0) parts.push(`${n} ${lang === "fr" ? fr : en}`);
    rest -= n * size;
    if (parts.length === 2) break;
  }
  return parts.length ? parts.join(" ") : "0 s";
}
