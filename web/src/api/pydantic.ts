// The application's own words for the API's refusals (issue 34, « errors in the user's language, on
// their field »). The 422 bodies stay the server's (FastAPI/Pydantic v2, the contract); the screens
// map each item's `loc` to their field and say its `type` in the user's language. A `value_error`
// is one of the server's rules: its words are the server's (French), without Pydantic's prefix,
// unless a form knows the rule and says it itself (`own`).

export type Lang = "fr" | "en";

/** One item of a 422's `detail`. */
export interface PydanticItem {
  type?: string;
  loc?: (string | number)[];
  msg?: string;
  ctx?: Record<string, unknown>;
}

const n = (v: unknown) => (typeof v === "number" || typeof v === "string" ? String(v) : "?");

const WORDS: Record<Lang, Record<string, (ctx: Record<string, unknown>) => string>> = {
  fr: {
    missing: () => "Ce champ est obligatoire.",
    string_too_short: (c) => (Number(c.min_length) <= 1 ? "Ce champ est obligatoire." : `Au moins ${n(c.min_length)} caractères.`),
    string_too_long: (c) => `Au plus ${n(c.max_length)} caractères.`,
    string_pattern_mismatch: () => "Ce format n'est pas accepté.",
    string_type: () => "Un texte est attendu.",
    greater_than_equal: (c) => `Au moins ${n(c.ge)}.`,
    less_than_equal: (c) => `Au plus ${n(c.le)}.`,
    greater_than: (c) => `Plus de ${n(c.gt)}.`,
    less_than: (c) => `Moins de ${n(c.lt)}.`,
    int_parsing: () => "Un nombre entier est attendu.",
    int_type: () => "Un nombre entier est attendu.",
    int_from_float: () => "Un nombre entier est attendu.",
    float_parsing: () => "Un nombre est attendu.",
    float_type: () => "Un nombre est attendu.",
    finite_number: () => "Un nombre est attendu.",
    bool_parsing: () => "Oui ou non est attendu.",
    date_parsing: () => "Une date est attendue (AAAA-MM-JJ).",
    date_type: () => "Une date est attendue (AAAA-MM-JJ).",
    date_from_datetime_parsing: () => "Une date est attendue (AAAA-MM-JJ).",
    date_from_datetime_inexact: () => "Une date sans heure est attendue.",
    uuid_parsing: () => "Cet identifiant n'est pas valide.",
    uuid_type: () => "Cet identifiant n'est pas valide.",
    enum: () => "Choisissez une des valeurs proposées.",
    literal_error: () => "Choisissez une des valeurs proposées.",
    url_parsing: () => "Cette adresse web n'est pas valide.",
    url_scheme: () => "L'adresse doit commencer par http:// ou https://.",
    url_type: () => "Une adresse web est attendue.",
    list_type: () => "Une liste est attendue.",
    too_short: (c) => `Au moins ${n(c.min_length)} élément(s).`,
    too_long: (c) => `Au plus ${n(c.max_length)} élément(s).`,
    extra_forbidden: () => "Ce champ n'est pas attendu.",
    json_invalid: () => "Le document n'est pas un JSON valide.",
    string_unicode: () => "Un texte est attendu.",
  },
  en: {
    missing: () => "This field is required.",
    string_too_short: (c) => (Number(c.min_length) <= 1 ? "This field is required." : `At least ${n(c.min_length)} characters.`),
    string_too_long: (c) => `At most ${n(c.max_length)} characters.`,
    string_pattern_mismatch: () => "This format is not accepted.",
    string_type: () => "A text is expected.",
    greater_than_equal: (c) => `At least ${n(c.ge)}.`,
    less_than_equal: (c) => `At most ${n(c.le)}.`,
    greater_than: (c) => `More than ${n(c.gt)}.`,
    less_than: (c) => `Less than ${n(c.lt)}.`,
    int_parsing: () => "A whole number is expected.",
    int_type: () => "A whole number is expected.",
    int_from_float: () => "A whole number is expected.",
    float_parsing: () => "A number is expected.",
    float_type: () => "A number is expected.",
    finite_number: () => "A number is expected.",
    bool_parsing: () => "Yes or no is expected.",
    date_parsing: () => "A date is expected (YYYY-MM-DD).",
    date_type: () => "A date is expected (YYYY-MM-DD).",
    date_from_datetime_parsing: () => "A date is expected (YYYY-MM-DD).",
    date_from_datetime_inexact: () => "A date without a time is expected.",
    uuid_parsing: () => "This identifier is not valid.",
    uuid_type: () => "This identifier is not valid.",
    enum: () => "Choose one of the values offered.",
    literal_error: () => "Choose one of the values offered.",
    url_parsing: () => "This web address is not valid.",
    url_scheme: () => "The address must start with http:// or https://.",
    url_type: () => "A web address is expected.",
    list_type: () => "A list is expected.",
    too_short: (c) => `At least ${n(c.min_length)} item(s).`,
    too_long: (c) => `At most ${n(c.max_length)} item(s).`,
    extra_forbidden: () => "This field is not expected.",
    json_invalid: () => "The document is not valid JSON.",
    string_unicode: () => "A text is expected.",
  },
};

const REFUSED: Record<Lang, string> = { fr: "Valeur refusée.", en: "Value refused." };

/** The field a `loc` names: ["body", "items", 0, "value"] → "items.0.value"; ["body"] → "" (the whole). */
export function fieldOf(loc: PydanticItem["loc"]): string {
  return (loc ?? []).slice(1).join(".");
}

/** An item's words in `lang`: the application's for a Pydantic type, the server's rule for a value_error. */
export function itemWords(item: PydanticItem, lang: Lang): string {
  const say = item.type ? WORDS[lang][item.type] : undefined;
  if (say) return say(item.ctx ?? {});
  const msg = String(item.msg ?? "").replace(/^Value error, /, "");
  return msg || REFUSED[lang];
}

/**
 * A 422's items as the message of each field (the first item of a field wins): `own[field]`, when a
 * form knows the rule of that field better than the server's words, replaces a value_error's words.
 */
export function fieldMessages(detail: unknown, lang: Lang, own: Record<string, string> = {}): Record<string, string> {
  const out: Record<string, string> = {};
  if (!Array.isArray(detail)) return out;
  for (const item of detail as PydanticItem[]) {
    const field = fieldOf(item.loc) || "_";
    if (field in out) continue;
    out[field] = item.type === "value_error" && own[field] ? own[field] : itemWords(item, lang);
  }
  return out;
}

const ROLE: Record<Lang, Record<string, string>> = {
  fr: { owner: "propriétaire", admin: "administrateur", member: "membre", viewer: "lecteur" },
  en: { owner: "owner", admin: "administrator", member: "member", viewer: "viewer" },
};

/**
 * A 403's words in `lang`. The server names the role it needs in its own (French) sentence
 * (« … exige le rôle « admin » … », src/platform/messages.ts AUTH.missingRole): the application
 * says which role in the user's words; any other 403 keeps the server's sentence.
 */
export function forbiddenWords(detail: unknown, lang: Lang): string | undefined {
  if (typeof detail !== "string") return undefined;
  const role = /le rôle « (owner|admin|member|viewer) »/.exec(detail)?.[1];
  if (!role) return detail;
  const name = ROLE[lang][role];
  return lang === "fr"
    ? `Votre rôle ne le permet pas : il faut être ${name} (ou plus) dans l'organisation.`
    : `Your role does not allow this: it takes ${name} (or above) in the organization.`;
}

/**
 * The required fields left blank, each with `words` (« Ce champ est obligatoire. »): a form flags
 * them all before sending, where the server's schema would stop at the first.
 */
export function requiredBlank(values: Record<string, string | null | undefined>, words: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [field, value] of Object.entries(values)) if (!value?.trim()) out[field] = words;
  return out;
}
