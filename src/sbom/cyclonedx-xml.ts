/**
 * CycloneDX 1.2–1.7 XML: validated against the XSD bundled with @cyclonedx/cyclonedx-library
 * through libxmljs2 (the library's XmlValidator does the same, but answers without line numbers),
 * then its components read, nested ones flattened. Unlike JSON, an XML document is parsed whole
 * (libxml2's tree, outside the JS heap): its memory grows with the document, about twenty times its
 * size (bench/sbom-read.ts: 50,000 components in 8.9 MiB of XML, peak RSS +186 MB; the same in JSON,
 * streamed, +38 MB for 61.6 MiB).
 * Parsing is safe: no network, no DTD loading, no entity substitution, libxml2's size limits kept.
 */
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { type Document, type Element, parseXml } from "libxmljs2";
import { ComponentList, Faults, text } from "./collect.js";
import { componentName, isCycloneDxVersion, unsupportedCycloneDx, withVersion } from "./cyclonedx-json.js";
import { type CycloneDxVersion, cyclonedxXsdFile } from "./schemas.js";
import { type ReadOptions, type SbomComponent, type SbomDocument, SbomInvalid } from "./types.js";
import { unsupported } from "./unsupported.js";

const PARSE = Object.freeze({ nonet: true, noent: false, dtdload: false, dtdvalid: false, huge: false, big_lines: true });
const NS_PREFIX = "http://cyclonedx.org/schema/bom/";

const xsdCache = new Map<CycloneDxVersion, Document>();

function xsd(version: CycloneDxVersion): Document {
  let doc = xsdCache.get(version);
  if (!doc) {
    const file = cyclonedxXsdFile(version);
    // The XSD imports spdx.SNAPSHOT.xsd beside it: resolved from its file URL, never the network.
    doc = parseXml(readFileSync(file, "utf8"), { ...PARSE, baseUrl: pathToFileURL(file).toString() });
    xsdCache.set(version, doc);
  }
  return doc;
}

const lineOf = (line: number | null | undefined) => (line ? `line ${line}` : "");

/** Reads a CycloneDX XML document (the whole text); lenient, one that fails its XSD is read all the same, its faults reported. */
export function readCycloneDxXml(source: Buffer, options: ReadOptions = {}): SbomDocument {
  let doc: Document;
  try {
    doc = parseXml(source as unknown as string, PARSE);
  } catch (err) {
    const e = err as { line?: number; column?: number; message?: string };
    const where = e.line ? `ligne ${e.line}${e.column ? `, colonne ${e.column}` : ""}` : "";
    throw new SbomInvalid("Le document n'est pas un XML bien formé.", [
      { at: lineOf(e.line), message: `XML mal formé${where ? ` (${where})` : ""} : ${String(e.message ?? "").trim()}` },
    ]);
  }
  const root = doc.root();
  if (!root) throw new SbomInvalid("Le document XML est vide.", [{ at: "", message: "Le document XML n'a pas d'élément racine." }]);
  const ns = root.namespace()?.href() ?? "";
  if (root.name() !== "bom" || !ns.startsWith(NS_PREFIX)) {
    if (root.name() === "RDF" || ns.includes("spdx")) throw unsupported("SPDX en RDF/XML", lineOf(root.line()));
    throw new SbomInvalid("Format de SBOM non reconnu.", [
      {
        at: lineOf(root.line()),
        message: `L'élément racine « ${root.name()} » (${ns || "sans espace de noms"}) n'est pas un « bom » CycloneDX.`,
      },
    ]);
  }
  const version = ns.slice(NS_PREFIX.length);
  if (!isCycloneDxVersion(version)) throw unsupportedCycloneDx(version, lineOf(root.line()));

  const faults = new Faults(options.lenient);
  if (!doc.validate(xsd(version))) {
    try {
      faults.add(doc.validationErrors.map((e) => ({ at: lineOf(e.line), message: String(e.message).trim() })));
    } catch (stop) {
      if (!(stop instanceof SbomInvalid)) throw stop;
    }
    if (!faults.lenient) throw faults.invalid();
  }

  const c = { c: ns };
  const list = new ComponentList();
  let seq = 0;
  // Parents before the components they nest, in document order.
  const walk = (parent: Element) => {
    for (const el of parent.find<Element>("c:components/c:component", c)) {
      list.set(seq++, toComponent(el, c));
      walk(el);
    }
  };
  const described = root.get<Element>("c:metadata/c:component", c);
  if (described) walk(described);
  walk(root);
  const components = list.result();
  const field = (el: Element, name: string) => text(el.get<Element>(`c:${name}`, c)?.text().trim());
  const versionAttr = root.attr("version")?.value();
  return {
    format: "cyclonedx",
    specVersion: version,
    encoding: "xml",
    serialNumber: text(root.attr("serialNumber")?.value()),
    documentVersion: versionAttr ? Number(versionAttr) : 1,
    name: described ? withVersion(componentName(field(described, "group"), field(described, "name")), field(described, "version")) : null,
    components,
    componentCount: list.count,
    faults: faults.list,
    faultCount: faults.total,
  };
}

function toComponent(el: Element, c: Record<string, string>): SbomComponent {
  const field = (name: string) => text(el.get<Element>(`c:${name}`, c)?.text().trim());
  return {
    ref: text(el.attr("bom-ref")?.value()),
    name: componentName(field("group"), field("name")),
    version: field("version"),
    purl: field("purl"),
    cpe: field("cpe"),
  };
}
