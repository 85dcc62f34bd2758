import type { Words } from "../../i18n/i18n";

/** The shell's links to the stacks, end-of-life and monitored-URL screens. */
export const navWords = {
  fr: { stacks: "Piles", eol: "Fin de vie", urls: "URL surveillées" },
  en: { stacks: "Stacks", eol: "End of life", urls: "Monitored URLs" },
} satisfies Words<{ stacks: string; eol: string; urls: string }>;
