import { createContext, type ReactNode, useContext, useEffect, useMemo, useState } from "react";
import { LANGS, type Lang, type Messages } from "./messages";

const STORAGE_KEY = "vigie.lang";

/** The language chosen before (localStorage), else French. */
export function storedLang(): Lang {
  try {
    return localStorage.getItem(STORAGE_KEY) === "en" ? "en" : "fr";
  } catch {
    return "fr";
  }
}

let active: Lang | undefined;

/**
 * The language on screen, for code outside React's tree that words a message (api/client.ts words an
 * error when the call fails): the provider's, else the stored choice.
 */
export function activeLang(): Lang {
  return active ?? storedLang();
}

interface I18n {
  lang: Lang;
  t: Messages;
  setLang(lang: Lang): void;
}

const I18nContext = createContext<I18n | null>(null);

export function I18nProvider({ children, initial }: { children: ReactNode; initial?: Lang }) {
  const [lang, setLangState] = useState<Lang>(initial ?? storedLang);
  useEffect(() => {
    document.documentElement.lang = lang;
  }, [lang]);
  active = lang;
  const value = useMemo<I18n>(
    () => ({
      lang,
      t: LANGS[lang],
      setLang(next) {
        try {
          localStorage.setItem(STORAGE_KEY, next);
        } catch {
          // Private mode: the choice lasts for this page only.
        }
        setLangState(next);
      },
    }),
    [lang],
  );
  return <I18nContext.Provider value={value}>{children}</I18nContext.Provider>;
}

/** The current language, its words and the switch. */
export function useI18n(): I18n {
  const ctx = useContext(I18nContext);
  if (!ctx) throw new Error("useI18n outside I18nProvider");
  return ctx;
}

/**
 * A screen's own words, kept beside it (its chunk carries them): `const w = useWords(words)` where
 * `words = { fr: {...}, en: {...} } satisfies Words<typeof fr>` — English must have every French key.
 */
export function useWords<T>(words: Words<T>): T {
  return words[useI18n().lang];
}

export type Words<T> = { fr: T; en: T };
