/// <reference types="vite/client" />

interface ImportMetaEnv {
  /** Where the documentation's pages (docs/*.md) are read, ending with `/`; set at `npm run build`. */
  readonly VITE_VIGIE_DOCS_URL?: string;
}
