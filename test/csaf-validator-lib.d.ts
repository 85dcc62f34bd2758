// @secvisogram/csaf-validator-lib ships JavaScript with JSDoc types but no declarations for its entry files.
declare module "@secvisogram/csaf-validator-lib/mandatoryTests.js" {
  const tests: Record<string, (doc: unknown) => unknown>;
  export = tests;
}
declare module "@secvisogram/csaf-validator-lib/schemaTests.js" {
  export const csaf_2_0_strict: (doc: unknown) => unknown;
  export const csaf_2_0: (doc: unknown) => unknown;
}
declare module "@secvisogram/csaf-validator-lib/validateStrict.js" {
  export default function validateStrict(tests: unknown[], doc: unknown): Promise<unknown>;
}
declare module "@secvisogram/csaf-validator-lib/optionalTests.js" {
  const tests: Record<string, (doc: unknown) => unknown>;
  export = tests;
}
declare module "@secvisogram/csaf-validator-lib/validate.js" {
  export default function validate(tests: unknown[], doc: unknown): Promise<unknown>;
}
