import type { Words } from "../../i18n/i18n";

/** The shell's links to the cases screens: their own tiny module, so the shell's chunk does not carry the screens' words. */
export const navWords: Words<{ navCases: string; navRisks: string }> = {
  fr: { navCases: "Dossiers", navRisks: "Registre des risques" },
  en: { navCases: "Cases", navRisks: "Risk register" },
};
