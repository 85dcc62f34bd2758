import { Link } from "@tanstack/react-router";
import { useI18n } from "../i18n/i18n";

export function NotFound() {
  const { t } = useI18n();
  return (
    <main id="main" className="screen">
      <h1>{t.notFoundTitle}</h1>
      <p>
        <Link to="/">{t.notFoundBack}</Link>
      </p>
    </main>
  );
}
