import type { components } from "../../api/schema";
import type { Words } from "../../i18n/i18n";

/** Why a case is non_concerne: the five justifications of CISA's minimum VEX (OpenVEX, CSAF flag labels). */
export type Justification = NonNullable<components["schemas"]["CaseOut"]["justification_vex"]>;

/** In the order CISA lists them: from the component being absent to a mitigation holding. */
export const JUSTIFICATIONS: readonly Justification[] = [
  "component_not_present",
  "vulnerable_code_not_present",
  "vulnerable_code_not_in_execute_path",
  "vulnerable_code_cannot_be_controlled_by_adversary",
  "inline_mitigations_already_exist",
];

type Said = Record<Justification, { label: string; explain: string }>;

/** Each justification's name and one line saying when it holds (the cases and VEX screens share them). */
export const justificationWords: Words<Said> = {
  fr: {
    component_not_present: {
      label: "Composant absent",
      explain: "Le composant vulnérable n'est pas présent dans le produit.",
    },
    vulnerable_code_not_present: {
      label: "Code vulnérable absent",
      explain: "Le composant est présent, mais pas le code vulnérable (retiré à la compilation, fonction exclue).",
    },
    vulnerable_code_not_in_execute_path: {
      label: "Code vulnérable jamais exécuté",
      explain: "Le code vulnérable est présent, mais le produit ne l'exécute jamais.",
    },
    vulnerable_code_cannot_be_controlled_by_adversary: {
      label: "Code vulnérable hors de portée d'un attaquant",
      explain: "Le code vulnérable s'exécute, mais un attaquant ne peut pas en contrôler les entrées.",
    },
    inline_mitigations_already_exist: {
      label: "Protections déjà intégrées",
      explain: "Le produit contient déjà des protections qui empêchent l'exploitation.",
    },
  },
  en: {
    component_not_present: {
      label: "Component not present",
      explain: "The vulnerable component is not included in the product.",
    },
    vulnerable_code_not_present: {
      label: "Vulnerable code not present",
      explain: "The component is included, but not the vulnerable code (removed at build time, an excluded feature).",
    },
    vulnerable_code_not_in_execute_path: {
      label: "Vulnerable code not in execute path",
      explain: "The vulnerable code is included, but the product never runs it.",
    },
    vulnerable_code_cannot_be_controlled_by_adversary: {
      label: "Vulnerable code cannot be controlled by adversary",
      explain: "The vulnerable code runs, but an attacker cannot control its inputs.",
    },
    inline_mitigations_already_exist: {
      label: "Inline mitigations already exist",
      explain: "The product already holds protections that prevent exploitation.",
    },
  },
};

/** A justification's label, or the value itself when it is not one of the five (a newer server). */
export function justificationLabel(said: Said, value: string): string {
  return (said as Record<string, { label: string }>)[value]?.label ?? value;
}

/** The words around the justifications wherever they are chosen. */
export const justificationUi: Words<{ meanings: string }> = {
  fr: { meanings: "Ce que dit chaque justification" },
  en: { meanings: "What each justification says" },
};
