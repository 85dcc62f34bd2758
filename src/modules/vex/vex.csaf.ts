import { exceptionText, JUSTIFICATION_TEXT, productsOf, type VexEntry, type VexModel, type VexProduct } from "./vex.model.js";
import { cvss3BaseScore, severityFromScore } from "../../feeds/cvss.js";
import { isCveId } from "../../feeds/merge.js";
import { sourceOf } from "./vex.sources.js";

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
  // Recommended test 6.2.16 asks a helper of every product: an item named by neither purl nor CPE has none to give.
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
  const cve = all.find(isCveId);
  const others = all.filter((id) => id !== cve).sort();
  return {
    ...(cve && { cve }),
    ...(others.length && { ids: others.map((text) => ({ system_name: sourceOf(text).name, text })) }),
  };
}

/**
 * The CVSS v3 score, for the products named (recommended test 6.2.3): the vector as stored, its base
 * score and severity computed from it (feeds/cvss.ts, FIRST's formula), so that mandatory tests
 * 6.1.9 and 6.1.10, which check the object against its vector, hold. No v2 or v4 object: Vigie
 * stores their vector but computes no score of its own.
 */
function scores(e: VexEntry, ids: string[]): Record<string, unknown>[] | undefined {
  const m = e.cvss_vector ? /^CVSS:(3\.[01])\//.exec(e.cvss_vector) : null;
  const base = m ? cvss3BaseScore(e.cvss_vector!) : null;
  if (!m || base === null) return undefined;
  const cvss_v3 = { version: m[1], vectorString: e.cvss_vector, baseScore: base, baseSeverity: severityFromScore(base).toUpperCase() };
  return [{ products: ids, cvss_v3 }];
}

/** One vulnerability: status, and what csaf_vex asks beside it (impact for not affected, an action for affected). */
function vulnerability(e: VexEntry): Record<string, unknown> {
  const ids = e.products.map(productId);
  const notes: Record<string, unknown>[] = [
    { category: "description", title: "Description", text: e.description?.trim() || `${e.cve_id} (description non connue de Vigie)` },
  ];
  if (e.notes?.trim()) notes.push({ category: "general", title: "Notes de l'équipe", text: e.notes.trim() });
  const score = scores(e, ids);
  const v: Record<string, unknown> = { ...names(e), notes, ...(score && { scores: score }) };
  const a = e.analysis;
  switch (a.kind) {
    case "under_investigation":
      v.product_status = { under_investigation: ids };
      // Recommended test 6.2.2: every product a status names has a remediation; none yet is the truth.
      v.remediations = [{ category: "none_available", details: "Analyse en cours par l'équipe du projet.", product_ids: ids }];
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

/**
 * The project as CSAF identifies a product with no purl nor CPE (§3.1.3.3.6, x_generic_uris): its
 * address under VIGIE_PUBLIC_URL when set, else its URN (the OpenVEX export's product @id).
 */
function projectHelper(model: VexModel): Record<string, unknown> {
  const path = `/api/v1/organizations/${model.organization.id}/projects/${model.project.id}`;
  return {
    x_generic_uris: [
      model.publicUrl
        ? { namespace: `${model.publicUrl}/api/v1`, uri: `${model.publicUrl}${path}` }
        : { namespace: "urn:vigie:project", uri: `urn:vigie:project:${model.project.id}` },
    ],
  };
}

/** The file name CSAF gives a document (§5.1): its tracking id in lower case, runs of other characters as "_", ".json". */
export function csafFileName(trackingId: string): string {
  return `${trackingId.toLowerCase().replace(/[^+\-a-z0-9]+/g, "_")}.json`;
}

/** The document's tracking id (derived from the state: the same state, the same id). */
function trackingId(model: VexModel): string {
  return `VIGIE-VEX-${model.project.id}-${model.digest.slice(0, 12)}`;
}

/**
 * The canonical URL (§3.2.1.10 reference `self`, recommended test 6.2.11): the route that serves
 * this very document by its file name, under VIGIE_PUBLIC_URL when it is https (CSAF asks https).
 */
export function csafCanonicalUrl(model: VexModel): string | null {
  if (!model.publicUrl?.startsWith("https://")) return null;
  const path = `/api/v1/organizations/${model.organization.id}/projects/${model.project.id}/vex/csaf`;
  return `${model.publicUrl}${path}/${csafFileName(trackingId(model))}`;
}

const collator = new Intl.Collator("en");

/** Keys in alphabetical order at every level (recommended test 6.2.13), arrays kept in their order. */
function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort((a, b) => collator.compare(a, b))
      .map((k) => [k, sortKeys((value as Record<string, unknown>)[k])]),
  );
}

/**
 * The CSAF document (a plain object, to serialize as JSON), its keys sorted. TLP:AMBER: the document
 * describes the organization's own stacks and analyses (limited disclosure); a publisher who makes it
 * public changes the label.
 */
export function toCsaf(model: VexModel): Record<string, unknown> {
  return sortKeys(csaf(model)) as Record<string, unknown>;
}

function csaf(model: VexModel): Record<string, unknown> {
  const canonical = csafCanonicalUrl(model);
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
      distribution: { tlp: { label: "AMBER", url: "https://www.first.org/tlp/" } },
      ...(canonical && { references: [{ category: "self", summary: "URL canonique de ce document", url: canonical }] }),
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
        id: trackingId(model),
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
        { name: model.project.name, product_id: PROJECT_ID, product_identification_helper: projectHelper(model) },
        ...products.map((p) => {
          const h = helper(p);
          return { name: label(p), product_id: componentId(p), ...(h && { product_identification_helper: h }) };
        }),
      ],
      relationships: products.map((p) => {
        const h = helper(p);
        return {
          category: "default_component_of",
          // The item within the project is still that package (or CPE): the same helper.
          full_product_name: {
            name: `${label(p)} dans ${model.project.name}`,
            product_id: productId(p),
            ...(h && { product_identification_helper: h }),
          },
          product_reference: componentId(p),
          relates_to_product_reference: PROJECT_ID,
        };
      }),
    },
    vulnerabilities: model.entries.map(vulnerability),
  };
}
