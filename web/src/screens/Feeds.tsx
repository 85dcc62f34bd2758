import { useQuery } from "@tanstack/react-query";
import { api, data } from "../api/client";
import type { components } from "../api/schema";
import { formatDate, formatDuration } from "../format";
import { formatDay } from "./eol/dates";
import { useI18n } from "../i18n/i18n";
import { sourceProtocol } from "../i18n/server-words";
import type { Messages } from "../i18n/messages";

type FeedSource = components["schemas"]["FeedSourceOut"];

export const feedsQuery = { queryKey: ["feeds"], queryFn: () => data(api.GET("/api/v1/feeds")) } as const;

/** A source's state in words and its badge's tone. */
export function feedState(s: FeedSource, t: Messages): { label: string; tone: "ok" | "warn" | "bad" | "idle" } {
  if (!s.enabled) return { label: t.stateDisabled, tone: "idle" };
  if (s.running) return { label: t.stateRunning, tone: "ok" };
  if (s.held_until && Date.parse(s.held_until) > Date.now()) return { label: t.stateHeld, tone: "warn" };
  if (s.stale) return { label: t.stateStale, tone: "bad" };
  if (s.failures > 0) return { label: t.stateFailing, tone: "warn" };
  if (!s.last_success_at) return { label: s.snapshot ? t.stateSnapshot : t.stateNever, tone: "idle" };
  return { label: t.stateOk, tone: "ok" };
}

/** GET /api/v1/feeds: each source's sync with its publisher, refreshed every 30 s. */
export function Feeds() {
  const { t, lang } = useI18n();
  const feeds = useQuery({ ...feedsQuery, refetchInterval: 30_000 });
  return (
    <section aria-labelledby="feeds-title" className="screen">
      <h1 id="feeds-title">{t.feedsTitle}</h1>
      <p className="muted">{t.feedsIntro}</p>
      {feeds.isPending && <p role="status">{t.loading}</p>}
      {feeds.isError && (
        <div role="alert" className="error">
          {t.loadError}{" "}
          <button type="button" className="button-secondary" onClick={() => void feeds.refetch()}>
            {t.retry}
          </button>
        </div>
      )}
      {feeds.data && (
        // A region the keyboard can scroll: the snapshot's and the first sync's sentences widen the table on a narrow screen.
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must take the focus (WCAG 2.1.1).
        <section className="table-wrap" tabIndex={0} aria-label={t.feedsCaption}>
          <table>
            <caption>{t.feedsCaption}</caption>
            <thead>
              <tr>
                <th scope="col">{t.colSource}</th>
                <th scope="col">{t.colState}</th>
                <th scope="col">{t.colLastSuccess}</th>
                <th scope="col">{t.colLag}</th>
                <th scope="col">{t.colNextRun}</th>
                <th scope="col" className="num">
                  {t.colApplied}
                </th>
                <th scope="col">{t.colError}</th>
              </tr>
            </thead>
            <tbody>
              {feeds.data.sources.map((s) => {
                const state = feedState(s, t);
                return (
                  <tr key={s.source}>
                    <th scope="row">
                      <span className="source">{s.source}</span>
                      <span className="sub">
                        {sourceProtocol(s.source, s.protocol, lang)} · {t.every(formatDuration(s.every_seconds, lang))}
                      </span>
                    </th>
                    <td>
                      <span className={`badge badge-${state.tone}`}>{state.label}</span>
                    </td>
                    <td>
                      {s.last_success_at
                        ? formatDate(s.last_success_at, lang)
                        : s.snapshot
                          ? t.fromSnapshot(
                              s.snapshot.data_until && formatDay(s.snapshot.data_until, lang),
                              formatDate(s.snapshot.imported_at, lang),
                            )
                          : t.never}
                    </td>
                    <td>{s.lag_seconds === null ? t.unknown : formatDuration(s.lag_seconds, lang)}</td>
                    <td>
                      {s.held_until && Date.parse(s.held_until) > Date.now()
                        ? t.heldUntil(formatDate(s.held_until, lang))
                        : s.next_run_at
                          ? formatDate(s.next_run_at, lang)
                          : s.enabled && !s.last_attempt_at
                            ? feeds.data.sync_scheduled === false
                              ? t.firstSyncOff
                              : t.firstSyncNow
                            : t.none}
                    </td>
                    <td className="num">{s.last_applied.toLocaleString(lang === "fr" ? "fr-FR" : "en-GB")}</td>
                    <td className="error-cell">{s.last_error ?? t.none}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </section>
      )}
    </section>
  );
}
