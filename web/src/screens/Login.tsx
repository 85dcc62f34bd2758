import { useQueryClient } from "@tanstack/react-query";
import { useNavigate, useSearch } from "@tanstack/react-router";
import { type FormEvent, useState } from "react";
import { api } from "../api/client";
import { sessionQuery } from "../api/session";
import { useI18n } from "../i18n/i18n";
import { LanguageSwitch } from "../layout/Shell";

/** Seconds to wait from a 429's Retry-After (at least 1). */
function retryAfter(res: Response): number {
  return Math.max(1, Math.ceil(Number(res.headers.get("retry-after")) || 1));
}

/** E-mail and password → POST /auth/login (the server sets the session cookie). */
export function Login() {
  const { t } = useI18n();
  const search = useSearch({ from: "/login" });
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    setPending(true);
    setError(null);
    try {
      const { response } = await api.POST("/auth/login", {
        body: { email: String(form.get("email")), password: String(form.get("password")) },
      });
      if (response.status === 401) return setError(t.badCredentials);
      if (response.status === 429) return setError(t.tooManyAttempts(retryAfter(response)));
      if (!response.ok) return setError(t.loadError);
      await queryClient.fetchQuery({ ...sessionQuery, staleTime: 0 });
      await navigate({ to: search.redirect ?? "/" });
    } catch {
      setError(t.loadError);
    } finally {
      setPending(false);
    }
  }

  const notice = search.expired ? t.sessionExpired : search.out ? t.loggedOut : null;
  return (
    <div className="login-page">
      <header className="login-header">
        <span className="brand">{t.appName}</span>
        <LanguageSwitch />
      </header>
      <main id="main" className="login-card">
        <h1>{t.loginTitle}</h1>
        <p className="muted">{t.loginIntro}</p>
        {notice && (
          <p className="notice" role="status">
            {notice}
          </p>
        )}
        <form onSubmit={submit} noValidate={false}>
          <div className="field">
            <label htmlFor="login-email">{t.email}</label>
            <input id="login-email" name="email" type="email" autoComplete="username" required />
          </div>
          <div className="field">
            <label htmlFor="login-password">{t.password}</label>
            <input id="login-password" name="password" type="password" autoComplete="current-password" required />
          </div>
          {error && (
            <p className="error" role="alert">
              {error}
            </p>
          )}
          <button type="submit" className="button-primary" disabled={pending}>
            {pending ? t.signingIn : t.signIn}
          </button>
        </form>
      </main>
    </div>
  );
}
