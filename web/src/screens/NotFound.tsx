import { Link } from "@tanstack/react-router";
import { useI18n } from "../i18n/i18n";

/** "Page not found": inside the shell when signed in (a project not the user's), else on its own. */
export function NotFound() {
  const { t } = useI18n();
  return (
    <section className="screen" aria-labelledby="not-found-title">
      <h1 id="not-found-title">{t.notFoundTitle}</h1>
      <p>
        <Link to="/">{t.notFoundBack}</Link>
      </p>
    </section>
  );
}

export function NotFoundPage() {
  return (
    <main id="main">
      <NotFound />
    </main>
  );
}
