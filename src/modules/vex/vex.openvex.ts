import { exceptionText, type VexEntry, type VexModel, type VexProduct } from "./vex.model.js";
import { sourceOf } from "./vex.sources.js";

/**
 * OpenVEX 0.2 from the read model. Pure. Each statement's product is the project, with every stack
 * item the CVE matches as its subcomponents (purl or CPE as identifiers, `cpe23` as the specification and its schema
 * spell it). A not_affected statement carries the justification label and the team's notes as its
 * impact statement: the pattern the specification recommends ("Note on justification and
 * impact_statement"), which the schema allows since March 2024 (openvex/spec 7b78cf1). An exception (MITIGATED or an accepted risk) is `affected` with its measure,
 * justification and expiry in action_statement: OpenVEX has no field for an expiry.
 */

const CONTEXT = "https://openvex.dev/ns/v0.2.0";

const UNDER_INVESTIGATION: Record<string, string> = {
  no_case: "Alerte sans dossier : pas encore analysée par l'équipe.",
  nouveau: "Dossier ouvert, pas encore analysé.",
  en_analyse: "Dossier en analyse.",
};

function subcomponent(p: VexProduct): Record<string, unknown> {
  const identifiers = p.purl ? { purl: p.purl } : p.cpe ? { cpe23: p.cpe } : undefined;
  return { "@id": p.purl ?? `urn:vigie:component:${p.key}`, ...(identifiers && { identifiers }) };
}

function statement(model: VexModel, e: VexEntry): Record<string, unknown> {
  const s: Record<string, unknown> = {
    vulnerability: {
      // The id's page in its own database (vex.sources.ts): an IRI for the vulnerability.
      "@id": sourceOf(e.cve_id).url,
      name: e.cve_id,
      ...(e.aliases.length && { aliases: e.aliases }),
      ...(e.description && { description: e.description }),
    },
    timestamp: e.updated,
    products: [{ "@id": `urn:vigie:project:${model.project.id}`, subcomponents: e.products.map(subcomponent) }],
  };
  const notes = e.notes?.trim() || null;
  const a = e.analysis;
  switch (a.kind) {
    case "under_investigation":
      s.status = "under_investigation";
      s.status_notes = notes ? `${UNDER_INVESTIGATION[a.reason]} ${notes}` : UNDER_INVESTIGATION[a.reason];
      break;
    case "fixed":
      s.status = "fixed";
      if (notes) s.status_notes = notes;
      break;
    case "affected":
      s.status = "affected";
      s.action_statement = "Remédiation en cours par l'équipe du projet.";
      if (notes) s.status_notes = notes;
      break;
    case "exception":
      s.status = "affected";
      s.action_statement = exceptionText(a);
      if (a.set_at) s.action_statement_timestamp = a.set_at;
      if (notes) s.status_notes = notes;
      break;
    case "not_affected":
      s.status = "not_affected";
      if (a.justification) {
        s.justification = a.justification;
        if (notes) s.impact_statement = notes;
      } else s.impact_statement = notes ?? "Non concerné, selon l'analyse de l'équipe du projet.";
      break;
  }
  return s;
}

/** The OpenVEX document (a plain object). At least one statement is needed: the service answers 409 before calling with none. */
export function toOpenVex(model: VexModel): Record<string, unknown> {
  return {
    "@context": CONTEXT,
    "@id": `urn:vigie:vex:${model.project.id}:${model.digest.slice(0, 16)}`,
    author: model.organization.name,
    role: "Document Creator",
    timestamp: model.timestamp,
    version: 1,
    tooling: `Vigie ${model.tool}`,
    statements: model.entries.map((e) => statement(model, e)),
  };
}
