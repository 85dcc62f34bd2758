/**
 * What an SBOM reader answers (src/sbom/read.ts): the document's identity and its components,
 * flattened (nested components, every package of an SPDX document) and merged (one entry per purl
 * or CPE). The stacks' SBOM import (src/modules/sbom) turns them into stack items.
 */
import type { SbomFormat } from "../platform/db/schema/alerting.js";

export type { SbomFormat };

export interface SbomComponent {
  /** The component's reference in the document (CycloneDX bom-ref, SPDX SPDXID), for messages. */
  ref: string | null;
  name: string;
  version: string | null;
  /** The package URL as the document gives it (null: none). */
  purl: string | null;
  /** The CPE (2.3 or 2.2) as the document gives it (null: none). */
  cpe: string | null;
}

export interface SbomDocument {
  format: SbomFormat;
  /** 1.2 to 1.7 (CycloneDX) or 2.2, 2.3 (SPDX). */
  specVersion: string;
  encoding: "json" | "xml";
  /** CycloneDX serialNumber, SPDX documentNamespace; null when the document has none. */
  serialNumber: string | null;
  /** CycloneDX `version` (1 when absent); null for SPDX. */
  documentVersion: number | null;
  /** The software the SBOM describes (CycloneDX metadata.component name@version, SPDX name). */
  name: string | null;
  /** Every component, flattened, in document order, duplicates (same purl and CPE) merged. */
  components: SbomComponent[];
  /** Components read before merging. */
  componentCount: number;
  /**
   * Read leniently: the faults against the schema (the first 100) and how many there were in all.
   * Strict reading refuses a document with any, so these are empty then.
   */
  faults: SbomFault[];
  faultCount: number;
}

/** How to read: `lenient` accepts a readable document that fails its schema, its faults reported. */
export interface ReadOptions {
  lenient?: boolean;
}

/** One fault of a document against its schema: where (a JSON pointer, or a line of an XML document) and what. */
export interface SbomFault {
  /** JSON pointer (`/components/12/purl`) or `line 34` of an XML document; `` for the document itself. */
  at: string;
  message: string;
}

/** The document is not a valid SBOM of a supported format: every fault found (at most 100). */
export class SbomInvalid extends Error {
  constructor(
    message: string,
    readonly faults: SbomFault[],
  ) {
    super(message);
  }
}
