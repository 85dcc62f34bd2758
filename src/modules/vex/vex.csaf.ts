import { exceptionText, JUSTIFICATION_TEXT, productsOf, type VexEntry, type VexModel, type VexProduct } from "./vex.model.js";
import { isCve, sourceOf } from "./vex.sources.js";

/**
 * CSAF 2.0, profile csaf_vex (OASIS CSAF 2.0 §4.5), from the read model. Pure. The product tree
 * holds the project and its stack items; each item "as a default component of" the project is the
 * product a status speaks of. What CSAF cannot say is in docs/adr/0031-vex-mapping.md: the
 * exception's expiry has no field (it is written in the remediation's details), CVSS and CWE are
 * left out (CSAF checks a CVSS object against its vector and a CWE against its official name,
 * which Vigie does not store), and the project's case notes are a note.
 */

const PROJECT_ID = "VIGIE-PROJECT";
/** CSAF's CPE pattern (csaf_json_schema.json, product_identification_helper.cpe): an item whose CPE does not match keeps its name alone. */
const CPE =
  /^(cpe:2\.3:[aho*-](:(((\?*|\*?)([a-zA-Z0-9\-._]|(\\[\\*?!"#$%&'()+,/:;<=>@[\]^`{|}~]))+(\?*|\*?))|[*-])){5}(:(([a-zA-Z]{2,3}(-([a-zA-Z]{2}|[0-9]{3}))?)|[*-]))(:(((\?*|\*?)([a-zA-Z0-9\-._]|(\\[\\*?!"#$%&'()+,/:;<=>@[\]^`{|}~]))+(\?*|\*?))|[*-])){4})|([c][pP][eE]:\/[AHOaho]?(:[A-Za-z0-9._\-~%]*){0,6})$/;

const componentId = (p: VexProduct) => `VIGIE-COMPONENT-${p.key}`;
/** The product a statement is about: the item as a component of the project. */
const productId = (p: VexProduct) => `VIGIE-${p.key}`;
const label = (p: VexProduct) => (p.version ? `${p.name} ${p.version}` : p.name);

function helper(p: VexProduct): Record<string, string> | undefined {
  if (p.purl) return { purl: p.purl };
  if (p.cpe && CPE.test(p.cpe)) return { cpe: p.cpe };
  return undefined;
}

/**
 * The vulnerability's names: `cve` holds a CVE id only (CSAF 2.0 §3.2.3.2, pattern ^CVE-…); every
 * other id (the record's own GO-, GHSA-, PYSEC-, RUSTSEC-… and its aliases) goes to `ids` with its
 * database as system_name (§3.2.3.4), sorted.
 */
function names(e: VexEntry): { cve?: string; ids?: { system_name: string; text: string }[] } {
  const all = [e.cve_id, ...e.aliases];
  const cve = all.find(isCve);
  const others = all.filter((id) => id !== cve).sort();
  return {
    ...(cve && { cve }),
    ...(others.length && { ids: others.map((text) => ({ system_name: sourceOf(text).name, text })) }),
  };
}

/** One vulnerability: status, and what csaf_vex asks beside it (impact for not affected, an action for affected). */
function vulnerability(e: VexEntry): Record<string, unknown> {
  const ids = e.products.map(productId);
  const notes: Record<string, unknown>[] = [
    { category: "description", title: "Description", text: e.description?.trim() || `${e.cve_id} (description non connue de Vigie)` },
  ];
  if (e.notes?.trim()) notes.push({ category: "general", title: "Notes de l'équipe", text: e.notes.trim() });
  const v: Record<string, unknown> = { ...names(e), notes };
  const a = e.analysis;
  switch (a.kind) {
    case "under_investigation":
      v.product_status = { under_investigation: ids };
      break;
    case "fixed":
      v.product_status = { fixed: ids };
      break;
    case "affected":
      v.product_status = { known_affected: ids };
      v.remediations = [{ category: "none_available", details: "Remédiation en cours par l'équipe du projet.", product_ids: ids }];
      break;
    case "exception":
      v.product_status = { known_affected: ids };
      v.remediations = [
        {
          category: a.nature === "MITIGATED" ? "mitigation" : "no_fix_planned",
          details: exceptionText(a),
          product_ids: ids,
          ...(a.set_at && { date: a.set_at }),
        },
      ];
      break;
    case "not_affected":
      v.product_status = { known_not_affected: ids };
      if (a.justification) v.flags = [{ label: a.justification, product_ids: ids, date: e.updated }];
      v.threats = [
        {
          category: "impact",
          details:
            e.notes?.trim() ||
            (a.justification ? JUSTIFICATION_TEXT[a.justification] : "Non concerné, selon l'analyse de l'équipe du projet."),
          product_ids: ids,
          date: e.updated,
        },
      ];
      break;
  }
  return v;
}

/** The CSAF document (a plain object, to serialize as JSON). */
export function toCsaf(model: VexModel): Record<string, unknown> {
  const products = productsOf(model);
  const ts = model.timestamp;
  const counts = new Map<string, number>();
  for (const e of model.entries) counts.set(e.analysis.kind, (counts.get(e.analysis.kind) ?? 0) + 1);
  const summary = [...counts].map(([k, n]) => `${k} : ${n}`).join(", ");
  return {
    document: {
      category: "csaf_vex",
      csaf_version: "2.0",
      lang: "fr",
      title: `VEX du projet ${model.project.name}`,
      publisher: { category: "vendor", name: model.organization.name, namespace: `urn:vigie:organization:${model.organization.id}` },
      notes: [
        {
          category: "summary",
          title: "Portée",
          text: `État des vulnérabilités alertées du projet ${model.project.name} (${model.entries.length} CVE ; ${summary}), selon les dossiers de l'équipe dans Vigie.`,
        },
      ],
      tracking: {
        id: `VIGIE-VEX-${model.project.id}-${model.digest.slice(0, 12)}`,
        status: "final",
        version: "1",
        initial_release_date: ts,
        current_release_date: ts,
        revision_history: [{ date: ts, number: "1", summary: "État des dossiers à cette date." }],
        generator: { engine: { name: "Vigie", version: model.tool }, date: ts },
      },
    },
    product_tree: {
      full_product_names: [
        { name: model.project.name, product_id: PROJECT_ID },
        ...products.map((p) => {
          const h = helper(p);
          return { name: label(p), product_id: componentId(p), ...(h && { product_identification_helper: h }) };
        }),
      ],
      relationships: products.map((p) => ({
        category: "default_component_of",
        full_product_name: { name: `${label(p)} dans ${model.project.name}`, product_id: productId(p) },
        product_reference: componentId(p),
        relates_to_product_reference: PROJECT_ID,
      })),
    },
    vulnerabilities: model.entries.map(vulnerability),
  };
}
