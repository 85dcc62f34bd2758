/**
 * Formats refused, and why. SPDX tag-value and SPDX 3 (JSON-LD) have no maintained JavaScript
 * parser or validator on npm (checked with `npm view` in November 2026: spdx-tools, @spdx/tools,
 * @spdx/spdx-tools, spdx-tag-value, spdx-parser, spdx3, @spdx/spdx3, @spdx/spdx-3-model,
 * spdx-sbom-parser, spdx-sbom all 404; the SPDX packages on npm read licence expressions only), and
 * a document we cannot validate against its official schema is not read.
 */
import { SbomInvalid } from "./types.js";

/** The formats read, as said to the user. */
export const ACCEPTED = "Formats acceptés : CycloneDX 1.2 à 1.7 (JSON ou XML), SPDX 2.2 et 2.3 (JSON).";

/** A document of a known but unsupported format (`what`: its name). */
export function unsupported(what: string, at = ""): SbomInvalid {
  return new SbomInvalid(`Format de SBOM non pris en charge : ${what}.`, [
    { at, message: `${what} n'est pas pris en charge. ${ACCEPTED}` },
  ]);
}
