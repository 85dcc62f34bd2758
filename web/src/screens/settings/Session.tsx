import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useNavigate } from "@tanstack/react-router";
import { useState } from "react";
import { api, data } from "../../api/client";
import { sessionQuery } from "../../api/session";
import { formatDate } from "../../format";
import { useI18n, useWords } from "../../i18n/i18n";
import { errorText, useSettings } from "./access";
import { Dialog } from "./Dialog";
import { words } from "./words";

/** The user's session: its end, and signing out everywhere (every session of the account, this one included). */
export function SessionSettings() {
  const w = useWords(words);
  const { lang } = useI18n();
  const { session } = useSettings();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [confirming, setConfirming] = useState(false);
  const everywhere = useMutation({
    mutationFn: () => data(api.POST("/auth/logout-everywhere")),
    onSuccess: async () => {
      queryClient.clear();
      queryClient.setQueryData(sessionQuery.queryKey, null);
      await navigate({ to: "/login", search: { out: true } });
    },
  });
  return (
    <section aria-labelledby="session-title" className="settings-panel">
      <h2 id="session-title">{w.sessionTitle}</h2>
      <dl className="facts">
        <dt>{w.sessionUser}</dt>
        <dd>{session.user.email}</dd>
        <dt>{w.sessionEnds}</dt>
        <dd>{formatDate(session.expires_at, lang)}</dd>
      </dl>
      <div className="settings-form">
        <h3>{w.everywhere}</h3>
        <p className="muted">{w.everywhereIntro}</p>
        <button type="button" className="button-danger" onClick={() => setConfirming(true)}>
          {w.everywhere}
        </button>
      </div>
      {confirming && (
        <Dialog title={w.everywhereTitle} onClose={() => setConfirming(false)}>
          <p>{w.everywhereText}</p>
          {everywhere.isError && (
            <p role="alert" className="error">
              {errorText(everywhere.error, w.genericError)}
            </p>
          )}
          <div className="dialog-actions">
            <button type="button" className="button-secondary" onClick={() => setConfirming(false)}>
              {w.cancel}
            </button>
            <button type="button" className="button-danger" onClick={() => everywhere.mutate()} disabled={everywhere.isPending}>
              {w.everywhere}
            </button>
          </div>
        </Dialog>
      )}
    </section>
  );
}
