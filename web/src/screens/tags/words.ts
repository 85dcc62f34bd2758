import type { Words } from "../../i18n/i18n";

const fr = {
  manage: (n: number) => (n ? `Gérer les étiquettes (${n})` : "Créer une étiquette"),
  newTag: "Nouvelle étiquette",
  name: "Nom",
  color: "Couleur",
  create: "Créer",
  created: (name: string) => `Étiquette « ${name} » créée.`,
  nameOf: (name: string) => `Nom de l'étiquette ${name}`,
  colorOf: (name: string) => `Couleur de l'étiquette ${name}`,
  save: "Enregistrer",
  saved: (name: string) => `Étiquette « ${name} » enregistrée.`,
  remove: "Supprimer",
  removeNamed: (name: string) => `Supprimer l'étiquette ${name}`,
  confirmRemove: (name: string) => `Confirmer : supprimer « ${name} » partout où elle est posée`,
  removed: (name: string) => `Étiquette « ${name} » supprimée.`,
  cancel: "Annuler",
  none: "Aucune étiquette dans le projet : créez-en une ci-dessous.",
  custom: (hex: string) => `Personnalisée (${hex})`,
  colors: {
    "#6b7280": "Gris",
    "#b91c1c": "Rouge",
    "#c2410c": "Orange",
    "#a16207": "Ocre",
    "#15803d": "Vert",
    "#0e7490": "Cyan",
    "#1d4ed8": "Bleu",
    "#7e22ce": "Violet",
    "#be185d": "Rose",
  } as Record<string, string>,
};

const en: typeof fr = {
  manage: (n) => (n ? `Manage tags (${n})` : "Create a tag"),
  newTag: "New tag",
  name: "Name",
  color: "Colour",
  create: "Create",
  created: (name) => `Tag “${name}” created.`,
  nameOf: (name) => `Name of tag ${name}`,
  colorOf: (name) => `Colour of tag ${name}`,
  save: "Save",
  saved: (name) => `Tag “${name}” saved.`,
  remove: "Delete",
  removeNamed: (name) => `Delete tag ${name}`,
  confirmRemove: (name) => `Confirm: delete “${name}” wherever it is set`,
  removed: (name) => `Tag “${name}” deleted.`,
  cancel: "Cancel",
  none: "No tag in the project: create one below.",
  custom: (hex) => `Custom (${hex})`,
  colors: {
    "#6b7280": "Grey",
    "#b91c1c": "Red",
    "#c2410c": "Orange",
    "#a16207": "Ochre",
    "#15803d": "Green",
    "#0e7490": "Cyan",
    "#1d4ed8": "Blue",
    "#7e22ce": "Purple",
    "#be185d": "Pink",
  },
};

export const words: Words<typeof fr> = { fr, en };

/** The palette offered: named colours (the name is what a screen reader and a colour-blind user choose by), each ≥ 4.5:1 on white. */
export const PALETTE = Object.keys(fr.colors);
