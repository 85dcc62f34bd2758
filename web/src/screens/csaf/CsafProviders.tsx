import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useId, useRef, useState } from "react";
import { api, data } from "../../api/client";
import type { components } from "../../api/schema";
import { formatDate } from "../../format";
import { useI18n, useWords } from "../../i18n/i18n";
import { feedsQuery } from "../Feeds";
import { errorText, roleAtLeast, useSettings } from "../settings/access";
import { NeedsRole } from "../settings/Settings";
import { csafWords } from "./words";

type Provider = components["schemas"]["CsafFeedProviderOut"];

const TONES: Record<string, string> = { a_jour: "ok", en_echec: "bad", nouveau: "idle" };

/**
 * `/settings/csaf`: the CSAF providers the organization follows — add by domain or metadata
 * address, or pick one from an aggregator's list (admins: following one changes every project's
 * alerts), each one's state, newest advisory and the documents refused with the reason (GET
 * /api/v1/feeds's fournisseurs_csaf); an admin stops following one after a confirmation.
 */
export function CsafProviders() {
  const w = useWords(csafWords);
  const { t } = useI18n();
  const { org, role } = useSettings();
  const feeds = useQuery({ ...feedsQuery, refetchInterval: 30_000 });
  const [status, setStatus] = useState("");
  const admin = roleAtLeast(role, "admin");
  const providers = (feeds.data?.fournisseurs_csaf ?? []).filter((p) => p.org_id === org.id);
  return (
    <section aria-labelledby="csaf-title" className="settings-panel">
      <h2 id="csaf-title">{w.title}</h2>
      <p className="muted">{w.intro}</p>
      <p role="status" className="status">
        {status}
      </p>
      {feeds.isPending && <p>{t.loading}</p>}
      {feeds.isError && (
        <p role="alert" className="error">
          {errorText(feeds.error, w.genericError)}
        </p>
      )}
      {feeds.data && (
        <ul className="csaf-providers" aria-label={w.listCaption}>
          {providers.length === 0 && <li>{w.noProviders}</li>}
          {providers.map((p) => (
            <ProviderCard key={p.id} p={p} admin={admin} onStatus={setStatus} />
          ))}
        </ul>
      )}
      {admin ? (
        <>
          <AddProvider onStatus={setStatus} />
          <FromAggregator onStatus={setStatus} />
        </>
      ) : (
        <NeedsRole what={w.whatAdd} least="admin" />
      )}
    </section>
  );
}

function ProviderCard({ p, admin, onStatus }: { p: Provider; admin: boolean; onStatus(s: string): void }) {
  const w = useWords(csafWords);
  const { lang } = useI18n();
  const { org } = useSettings();
  const queryClient = useQueryClient();
  const who = p.editeur ?? p.fournisseur;
  const sync = useMutation({
    mutationFn: () =>
      data(
        api.POST("/api/v1/organizations/{org_id}/csaf/providers/{provider_id}/sync", {
          params: { path: { org_id: org.id, provider_id: p.id } },
        }),
      ),
    onSuccess: async (r) => {
      await queryClient.invalidateQueries({ queryKey: feedsQuery.queryKey });
      onStatus(
        r.status === "busy"
          ? w.busy(who)
          : r.status === "failed"
            ? w.addFailed(who, r.error ?? "")
            : w.synced(who, r.appliquees, r.alertes),
      );
    },
    onError: (e) => onStatus(errorText(e, w.genericError)),
  });
  const [confirming, setConfirming] = useState(false);
  const remove = useMutation({
    mutationFn: () =>
      data(
        api.DELETE("/api/v1/organizations/{org_id}/csaf/providers/{provider_id}", {
          params: { path: { org_id: org.id, provider_id: p.id } },
        }),
      ),
    onSuccess: async () => {
      onStatus(w.removed(who));
      await queryClient.invalidateQueries({ queryKey: feedsQuery.queryKey });
      await queryClient.invalidateQueries({ queryKey: ["csaf-aggregator"] });
    },
    onError: (e) => onStatus(errorText(e, w.genericError)),
  });
  const date = (d: string | null) => (d ? formatDate(d, lang) : w.never);
  return (
    <li className="csaf-provider">
      <h3>
        {who} <span className={`badge badge-${TONES[p.statut] ?? "idle"}`}>{w.states[p.statut] ?? p.statut}</span>
      </h3>
      {p.editeur && <p className="sub break">{p.fournisseur}</p>}
      <dl className="facts">
        <dt>{w.lastSuccess}</dt>
        <dd>{date(p.dernier_succes)}</dd>
        <dt>{w.lastDocument}</dt>
        <dd>{date(p.dernier_document)}</dd>
        <dt>{w.documents}</dt>
        <dd>{p.documents.toLocaleString(lang === "fr" ? "fr-FR" : "en-GB")}</dd>
        <dt>{w.refusals}</dt>
        <dd>{p.refus.toLocaleString(lang === "fr" ? "fr-FR" : "en-GB")}</dd>
        {p.decouvert_par && (
          <>
            <dt>{w.foundVia}</dt>
            <dd>{p.decouvert_par}</dd>
          </>
        )}
        {p.derniere_erreur && (
          <>
            <dt>{w.lastError}</dt>
            <dd className="error-cell">{p.derniere_erreur}</dd>
          </>
        )}
      </dl>
      {p.refus_recents.length > 0 && (
        <details>
          <summary>{w.recentRefusals(p.refus)}</summary>
          <ul className="plain-list">
            {p.refus_recents.map((r) => (
              <li key={r.url}>
                <span className="break">{r.url.split("/").pop()}</span> — {r.raison} <span className="sub">({formatDate(r.at, lang)})</span>
              </li>
            ))}
          </ul>
        </details>
      )}
      {admin && (
        <button
          type="button"
          className="button-secondary"
          aria-label={w.syncLabel(who)}
          disabled={sync.isPending}
          onClick={() => sync.mutate()}
        >
          {sync.isPending ? w.syncing : w.syncNow}
        </button>
      )}
      {admin &&
        (confirming ? (
          <fieldset aria-label={w.removeAsk(who)} className="confirm">
            <p>{w.removeAsk(who)}</p>
            <button
              type="button"
              className="button-danger"
              aria-label={w.removeConfirmOf(who)}
              disabled={remove.isPending}
              onClick={() => remove.mutate()}
            >
              {w.removeConfirm}
            </button>
            <button type="button" className="button-secondary" onClick={() => setConfirming(false)}>
              {w.cancel}
            </button>
          </fieldset>
        ) : (
          <button type="button" className="button-secondary" aria-label={w.removeOf(who)} onClick={() => setConfirming(true)}>
            {w.remove}
          </button>
        ))}
    </li>
  );
}

/**
 * Follows a provider (POST …/csaf/providers: a domain or a provider-metadata address) and says how
 * its first sync went; `done` runs once it is followed.
 */
function useFollow(onStatus: (s: string) => void, done?: () => void) {
  const w = useWords(csafWords);
  const { org } = useSettings();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (fournisseur: string) =>
      data(api.POST("/api/v1/organizations/{org_id}/csaf/providers", { params: { path: { org_id: org.id } }, body: { fournisseur } })),
    onSuccess: async (r) => {
      done?.();
      await queryClient.invalidateQueries({ queryKey: feedsQuery.queryKey });
      await queryClient.invalidateQueries({ queryKey: ["csaf-aggregator"] });
      const who = r.fournisseur.editeur ?? r.fournisseur.fournisseur;
      const s = r.synchronisation;
      onStatus(
        s.status === "failed"
          ? w.addFailed(who, r.fournisseur.derniere_erreur ?? s.error ?? "")
          : w.added(who, s.appliquees, s.refusees.length),
      );
    },
  });
}

function AddProvider({ onStatus }: { onStatus(s: string): void }) {
  const w = useWords(csafWords);
  const id = useId();
  const form = useRef<HTMLFormElement>(null);
  const add = useFollow(onStatus, () => form.current?.reset());
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    add.mutate(String(new FormData(e.currentTarget).get("fournisseur") ?? "").trim());
  };
  return (
    <form ref={form} className="settings-form" onSubmit={submit} aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>{w.addTitle}</h3>
      <div className="field">
        <label htmlFor={id}>{w.addLabel}</label>
        <input id={id} name="fournisseur" required maxLength={2000} aria-describedby={`${id}-hint`} autoComplete="off" spellCheck={false} />
        <span id={`${id}-hint`} className="sub">
          {w.addHint}
        </span>
      </div>
      {add.isError && (
        <p role="alert" className="error">
          {errorText(add.error, w.genericError, { fournisseur: w.addLabel })}
        </p>
      )}
      <button type="submit" className="button-primary" disabled={add.isPending}>
        {add.isPending ? w.adding : w.add}
      </button>
    </form>
  );
}

/**
 * Picks a provider from an aggregator's list (GET …/csaf/aggregator: its aggregator.json read by
 * the server), each followed in one click by its metadata address (POST …/csaf/providers).
 */
function FromAggregator({ onStatus }: { onStatus(s: string): void }) {
  const w = useWords(csafWords);
  const { org } = useSettings();
  const id = useId();
  const [asked, setAsked] = useState("");
  const list = useQuery({
    queryKey: ["csaf-aggregator", org.id, asked],
    enabled: asked !== "",
    queryFn: () =>
      data(
        api.GET("/api/v1/organizations/{org_id}/csaf/aggregator", { params: { path: { org_id: org.id }, query: { agregateur: asked } } }),
      ),
  });
  const follow = useFollow(onStatus);
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    setAsked(String(new FormData(e.currentTarget).get("agregateur") ?? "").trim());
  };
  return (
    <section className="settings-form" aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>{w.aggTitle}</h3>
      <form onSubmit={submit}>
        <div className="field">
          <label htmlFor={id}>{w.aggLabel}</label>
          <input
            id={id}
            name="agregateur"
            required
            maxLength={2000}
            aria-describedby={`${id}-hint`}
            autoComplete="off"
            spellCheck={false}
          />
          <span id={`${id}-hint`} className="sub">
            {w.aggHint}
          </span>
        </div>
        <button type="submit" className="button-secondary" disabled={list.isFetching}>
          {list.isFetching ? w.aggReading : w.aggRead}
        </button>
      </form>
      {list.isError && (
        <p role="alert" className="error">
          {errorText(list.error, w.genericError, { agregateur: w.aggLabel })}
        </p>
      )}
      {list.data && (
        <ul className="plain-list" aria-label={w.aggListOf(list.data.nom)}>
          {list.data.fournisseurs.length === 0 && <li>{w.aggEmpty}</li>}
          {list.data.fournisseurs.map((p) => (
            <li key={p.metadata_url}>
              <strong>{p.editeur || p.metadata_url}</strong> <span className="sub">({p.categorie || p.type})</span>
              <br />
              <span className="sub break">{p.metadata_url}</span>{" "}
              {p.suivi ? (
                <span className="badge badge-ok">{w.aggFollowed}</span>
              ) : (
                <button
                  type="button"
                  className="button-secondary"
                  aria-label={w.aggFollowOf(p.editeur || p.metadata_url)}
                  disabled={follow.isPending}
                  onClick={() => follow.mutate(p.metadata_url, { onError: (e) => onStatus(errorText(e, w.genericError)) })}
                >
                  {w.add}
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
