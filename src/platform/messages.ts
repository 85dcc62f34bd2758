/**
 * The French messages of the answers Vigie gives, and the stable codes of its conflicts: part of
 * the interface contract (../shared/spec/interface.md), so each is written here once and every
 * module throws from this catalogue.
 */

/** 404 messages: the resource the path names does not exist for this caller. */
export const NOT_FOUND = {
  organization: "Organisation introuvable",
  project: "Projet introuvable",
  workflow: "Workflow introuvable",
  run: "Run introuvable",
  stack: "Pile introuvable",
  stackItem: "Élément de pile introuvable",
  sbom: "SBOM introuvable dans cette pile",
  tag: "Tag introuvable",
  alert: "Alerte introuvable",
  cve: "CVE introuvable",
  case: "Dossier introuvable",
  exception: "Aucune exception propre au dossier n'est en vigueur",
  risk: "Entrée du registre des risques introuvable",
  vulnerability: "Vulnérabilité introuvable",
  apiKey: "Clé d'API introuvable",
  /** The path's user_id is not a member of the organization. */
  member: "Membre introuvable",
  report: "Rapport introuvable",
  reportVersion: (n: number) => `Version ${n} du rapport introuvable`,
  /** Find-again: no report version of this organization (within the key's projects) has this file or fingerprint. */
  evidence: "Preuve introuvable",
  eolProduct: "Produit introuvable dans les données de fin de vie",
  eolSubscription: "Abonnement de fin de vie introuvable",
  monitoredUrl: "URL surveillée introuvable",
  technology: "Technologie non détectée sur cette URL (dernier scan)",
  plan: (slug: string) => `Plan introuvable : ${slug}`,
  vexProposal: "Proposition VEX introuvable",
  vexDocument: "Document VEX introuvable (l'état du projet a changé depuis : exporter à nouveau)",
  csafProvider: "Fournisseur CSAF introuvable",
  csafAdvisory: "Avis CSAF introuvable",
} as const;

/** 409 codes, each with the message of its conflict. */
export const CONFLICT = {
  /** A name unique within its parent; `what` reads "Un tag nommé", "Une pile nommée"… */
  nameTaken: {
    code: "nom_deja_utilise",
    message: (what: string, name: string, within: string) => `${what} « ${name} » existe déjà${within}`,
  },
  emailTaken: { code: "email_deja_utilise", message: (email: string) => `Un compte existe déjà pour ${email}` },
  alreadyMember: {
    code: "deja_membre",
    message: (email: string, role: string) => `${email} est déjà membre de l'organisation (rôle « ${role} ») : changez son rôle`,
  },
  lastOwner: {
    code: "dernier_proprietaire",
    message: "Le dernier propriétaire de l'organisation ne peut être ni rétrogradé ni retiré : nommez d'abord un autre propriétaire",
  },
  idempotencyKeyReused: { code: "cle_idempotence_reutilisee", message: "Cette clé d'idempotence a déjà servi pour une autre requête" },
  staleVersion: {
    code: "version_perimee",
    message: (version: number, current: number) => `La version ${version} est périmée : la version courante est ${current}`,
  },
  defaultWorkflow: { code: "workflow_par_defaut", message: "Le workflow par défaut du projet ne peut pas être supprimé" },
  lastWorkflow: { code: "dernier_workflow", message: "Le dernier workflow du projet ne peut pas être supprimé" },
  eolSubscriptionExists: {
    code: "abonnement_existant",
    message: (product: string, cycle: string | null) =>
      `Le projet est déjà abonné à ${product}${cycle === null ? " (tous les cycles)" : ` ${cycle}`}`,
  },
  riskExpired: {
    code: "risque_expire",
    message: (expiresOn: string) =>
      `Cette entrée du registre a expiré (valable jusqu'au ${expiresOn} inclus, heure de Paris) : créez-en une nouvelle`,
  },
  invalidTransition: {
    code: "transition_invalide",
    message: (from: string | null, to: string, allowed: readonly string[], viaException: boolean) =>
      viaException
        ? `Le statut ${to} s'obtient en posant une exception sur le dossier (PUT …/exception) ou en le couvrant par une entrée du registre des risques${from ? ` ; depuis ${from}, impossible` : ""}`
        : `Transition invalide : ${from ?? "(aucun)"} → ${to} (depuis ${from ?? "(aucun)"} : ${allowed.join(", ") || "aucune"})`,
  },
  reportFrozen: { code: "rapport_fige", message: "Ce rapport est figé : c'est une preuve, il ne peut être ni modifié ni supprimé" },
  noCsv: {
    code: "format_indisponible",
    message: (type: string) => `Le rapport ${type} n'est pas un tableau : il n'a pas de CSV (formats : pdf, json)`,
  },
  urlTaken: { code: "url_deja_surveillee", message: (url: string) => `L'URL ${url} est déjà surveillée dans ce projet` },
  technologyWithoutCpe: {
    code: "technologie_sans_cpe",
    message: (name: string) => `${name} n'a pas de CPE dans les empreintes : elle ne peut pas être ajoutée à une pile`,
  },
  technologyWithoutVersion: {
    code: "technologie_sans_version",
    message: (name: string) => `La version de ${name} n'a pas été détectée : ajoutez l'élément à la pile à la main`,
  },
  proposalDecided: {
    code: "proposition_decidee",
    message: (status: string) => `Cette proposition VEX est déjà décidée (${status}) : importer le document à nouveau ne la rouvre pas`,
  },
  csafProviderTaken: {
    code: "fournisseur_deja_suivi",
    message: (name: string) => `L'organisation suit déjà le fournisseur CSAF ${name}`,
  },
  emptyVex: {
    code: "vex_vide",
    message: (format: string) =>
      `Le projet n'a aucune alerte : un document ${format === "csaf" ? "CSAF VEX" : "OpenVEX"} exige au moins une vulnérabilité (le format cyclonedx accepte une liste vide)`,
  },
  /** A bulk change refused as a whole: `n` selected cases cannot move to the status. */
  bulkTransition: (n: number, first: string) =>
    `${n} dossier${n > 1 ? "s" : ""} ne peu${n > 1 ? "vent" : "t"} pas prendre ce statut, rien n'a été modifié. ${first}`,
} as const;

/** 401 and 429 messages of the credentials. */
export const AUTH = {
  invalidApiKey: "Clé d'API invalide ou révoquée",
  apiKeyRefused: "Une clé d'API n'est pas acceptée ici : connectez-vous (POST /auth/login)",
  badCredentials: "Identifiants invalides",
  badSession: "Session invalide ou expirée",
  ownerRole: "Seul un propriétaire (owner) peut attribuer, modifier ou retirer le rôle « owner »",
  missingRole: (role: string) => `Rôle insuffisant : cette opération exige le rôle « ${role} » (ou supérieur) dans l'organisation`,
  crossSite: "Requête intersite refusée : une écriture authentifiée par le cookie de session doit venir de Vigie lui-même (CSRF)",
  missingScope: (scope: string) => `Scope manquant : cette opération exige le scope « ${scope} » sur la clé d'API`,
  riskBeyondRestriction:
    "Cette entrée du registre couvre des dossiers de projets hors de la restriction de la clé d'API : seule une clé sans cette restriction peut la modifier ou la supprimer",
  csafRestricted:
    "Cette clé est limitée à des projets : suivre un fournisseur CSAF touche toute l'organisation (clé sans restriction de projets requise)",
  orgReportRestricted: "Les rapports de l'organisation couvrent tous ses projets : ils demandent une clé d'API sans restriction de projets",
  hourlyLimit: (limit: number) => `Limite de ${limit} appels par heure atteinte pour cette organisation`,
  loginThrottled: (seconds: number) => `Trop de tentatives de connexion échouées : réessayez dans ${seconds} s`,
  reportsBusy: "Trop de rapports en cours de génération : réessayez dans quelques secondes",
} as const;

/** 503 messages: what the process cannot do now, and will again without a restart. */
export const UNAVAILABLE = {
  database: "Base de données injoignable : réessayez dans quelques secondes",
  notReady: "Processus pas prêt",
} as const;

/** Messages of the MCP server's tool errors. */
export const MCP = {
  internalError: "Erreur interne : l'outil n'a pas pu répondre",
  workflowTarget: "project_id (workflow d'un projet) ou org_id (workflow de l'organisation) : l'un des deux, pas les deux",
} as const;

/** 422 messages of the rules services check (Pydantic prefixes them with "Value error, "). */
export const INVALID = {
  nameLength: "le nom doit faire de 1 à 200 caractères",
  nameEmpty: "le nom ne peut pas être vide",
  keyNameLength: "le nom fait au plus 100 caractères",
  slug: "slug invalide : minuscules, chiffres, - et _ (50 caractères au plus)",
  callsPerHour: "doit être un entier supérieur ou égal à 1",
  unknownScope: (bad: string[], all: readonly string[]) => `scope inconnu : ${bad.join(", ")} (scopes : ${all.join(", ")})`,
  foreignProjects: (ids: string[]) => `projet introuvable dans cette organisation : ${ids.join(", ")}`,
  email: "adresse e-mail invalide",
  unknownAccount: "aucun compte pour cette adresse : fournir password pour le créer",
  passwordLength: "le mot de passe doit faire de 8 à 1024 caractères",
  unknownRole: (roles: readonly string[]) => `rôle inconnu (rôles : ${roles.join(", ")})`,
  roleWithoutOrg: "--role demande --org",
  unknownTags: (ids: string[]) => `tag inconnu dans ce projet : ${ids.join(", ")}`,
  idsOrAll: "fournir soit ids (non vide), soit all: true",
  graphAndShortForm: "fournir soit graph, soit trigger/actions/create_case, pas les deux",
  graphOrShortForm: "fournir graph, ou trigger et actions",
  triggerWithActions: "trigger est requis avec actions",
  pastExpiry: (today: string) => `la date d'expiration ne peut pas être passée (aujourd'hui à Paris : ${today})`,
  measureRequired: "measure est requise pour une exception MITIGATED",
  createNeedsIds: "create_missing demande cve_ids",
  idsOrFilter: "fournir soit cve_ids (non vide), soit filter, pas les deux",
  nothingToSet: "set doit contenir au moins un changement : status, severity, justification_vex, add_tags ou remove_tags",
  unknownCases: (ids: string[]) => `aucun dossier dans ce projet pour : ${ids.join(", ")}`,
  tooManyCases: (max: number) => `le filtre sélectionne plus de ${max} dossiers : affinez-le`,
  reportPeriodUnused: "from et to ne s'appliquent qu'au rapport_projet (les autres rapports donnent l'état du jour)",
  reportPeriodOrder: "from doit précéder to (ou lui être égal)",
  reportPeriodLength: (days: number) => `la période fait au plus ${days} jours`,
  uploadMissing: "le fichier est attendu dans le champ « file » (multipart/form-data)",
  uploadUnreadable: "corps multipart/form-data illisible",
  sbomStackName: "le document ne nomme pas le logiciel qu'il décrit : donnez le nom de la pile (?name=)",
  unknownEolProduct: (id: string) => `produit inconnu des données de fin de vie : ${id} (GET /api/v1/eol/products)`,
  unknownEolCycle: (product: string, cycle: string) => `cycle inconnu pour ${product} : ${cycle}`,
  periodWithDates: "period ne se combine pas avec from ou to",
  fromAfterTo: "from doit précéder ou égaler to",
  tooManyPeriods: (max: number) => `plus de ${max} périodes : choisissez une granularité plus large ou une période plus courte`,
  projectMetric: (metric: string) => `la métrique ${metric} demande project_id`,
  url: "URL http:// ou https:// invalide",
  urlCredentials: "l'URL ne doit pas contenir d'identifiants (user:password@)",
  justificationNeedsNonConcerne: (status: string) =>
    `justification_vex ne s'applique qu'à un dossier non_concerne (statut ${status}) : passez status à non_concerne dans la même requête`,
  justificationNeedsNonConcerneBulk: (ids: string[]) =>
    `justification_vex ne s'applique qu'aux dossiers non_concerne : donnez status non_concerne, ou retirez ces dossiers : ${ids.join(", ")}`,
  vexFormatUnknown:
    "format VEX non reconnu : attendu CycloneDX (bomFormat « CycloneDX »), CSAF 2.0 (document.csaf_version « 2.0 ») ou OpenVEX (@context https://openvex.dev/ns…)",
  vexSchema: (format: string, message: string) => `non conforme au schéma ${format} : ${message}`,
} as const;
