/**
 * The official validators the VEX tests hold Vigie's documents to: CycloneDX 1.6 (the CycloneDX
 * library's strict JSON validator and bundled schema), CSAF 2.0 (the BSI csaf-validator-lib: its
 * strict schema test and every mandatory test, the csaf_vex profile's 6.1.27.x among them) and
 * OpenVEX 0.2 (ajv, JSON Schema 2020-12, the current schema of openvex/spec kept in assets/schemas,
 * its `iri` format as the import checks it, vex.import.ts isIri; origin and commit in assets/schemas/README.md).
 */
import { readFileSync } from "node:fs";
import { Spec, Validation } from "@cyclonedx/cyclonedx-library";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { isIri } from "../src/modules/vex/vex.import.js";

/** CycloneDX 1.6: null when valid, else the validator's errors. */
export async function cycloneDxErrors(text: string): Promise<unknown> {
  return new Validation.JsonStrictValidator(Spec.Version.v1dot6).validate(text);
}

// The CSAF library compiles its JSON schemas when its modules load: 17 CPU-seconds for all of them on
// the 2-core machine (mandatory tests 4 s, strict validation 5 s, recommended tests 8 s). It loads only
// in the files that check CSAF, at their top level (`await loadCsafValidator()`), outside any test's
// timeout, so that a file that checks only CycloneDX or OpenVEX does not pay for it.
let csafLibrary: ReturnType<typeof importCsafLibrary> | undefined;
const importCsafLibrary = async () => {
  const [schema, mandatory, recommended, strict, loose] = await Promise.all([
    import("@secvisogram/csaf-validator-lib/schemaTests.js"),
    import("@secvisogram/csaf-validator-lib/mandatoryTests.js"),
    import("@secvisogram/csaf-validator-lib/optionalTests.js"),
    import("@secvisogram/csaf-validator-lib/validateStrict.js"),
    import("@secvisogram/csaf-validator-lib/validate.js"),
  ]);
  return { schema, mandatory, recommended, validateStrict: strict.default, validate: loose.default };
};
export const loadCsafValidator = () => (csafLibrary ??= importCsafLibrary());

/** CSAF 2.0: the failed tests (schema or mandatory) with their errors; [] when valid. */
export async function csafFailures(doc: unknown): Promise<{ name: string; errors: unknown[] }[]> {
  const { schema, mandatory, validateStrict } = await loadCsafValidator();
  const tests = [schema.csaf_2_0_strict, ...Object.values(mandatory)];
  const result = (await validateStrict(tests as never, doc as never)) as {
    isValid: boolean;
    tests: { name: string; isValid: boolean; errors: unknown[] }[];
  };
  return result.tests.filter((t) => !t.isValid).map((t) => ({ name: t.name, errors: t.errors }));
}

/** CSAF 2.0 recommended tests (§6.2, "optional" in the library): the names of those that warn, with their warnings. */
export async function csafWarnings(doc: unknown): Promise<Record<string, unknown[]>> {
  const { recommended, validate } = await loadCsafValidator();
  const result = (await validate(Object.values(recommended) as never, doc as never)) as {
    tests: { name: string; warnings: unknown[]; errors: unknown[] }[];
  };
  return Object.fromEntries(
    result.tests.filter((t) => t.warnings.length || t.errors.length).map((t) => [t.name, [...t.warnings, ...t.errors]]),
  );
}

/** The names of the mandatory tests run (to check the csaf_vex ones are among them). */
export async function csafMandatoryTests(): Promise<string[]> {
  return Object.keys((await loadCsafValidator()).mandatory);
}

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);
ajv.addFormat("iri", isIri);
const openVex = ajv.compile(JSON.parse(readFileSync(new URL("../assets/schemas/openvex_json_schema_0.2.0.json", import.meta.url), "utf8")));

/** OpenVEX 0.2: the schema's errors; [] when valid. */
export function openVexErrors(doc: unknown): unknown[] {
  return openVex(doc) ? [] : (openVex.errors ?? []);
}
