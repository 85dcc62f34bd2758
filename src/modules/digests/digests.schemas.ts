import { z } from "zod";

const DigestGroup = z
  .object({
    palier: z.string().nullable().describe("P1 … P4; null: events without a tier"),
    libelle: z.string(),
    total: z.int(),
    produits: z.array(z.object({ nom: z.string(), total: z.int() })).describe("By product (vendor and product), most events first"),
  })
  .meta({ id: "DigestGroup" });

export const DigestPreview = z
  .object({
    node_id: z.string(),
    action: z.enum(["notify_webhook", "notify_email", "notify_slack", "notify_teams"]),
    every: z.enum(["hourly", "daily", "weekly"]),
    fait_pour_la_limite: z
      .boolean()
      .describe("true: the node sends at once; this hourly digest holds the events of runs throttled past the workflow's hourly limit"),
    prochain_envoi: z.iso.datetime().describe("When the digest closes (the job sends it within the minute)"),
    depuis: z.iso.datetime().nullable().describe("When the node's previous digest closed; null before the first"),
    total: z.int().describe("Events waiting for this digest"),
    reportes_par_limite: z.int().describe("Of them, events of runs throttled past the workflow's hourly limit"),
    envoye_si_vide: z.boolean().describe("An empty period sends « rien à signaler » (delivery.empty)"),
    groupes: z.array(DigestGroup).describe("By palier (P1 first), then by product"),
    titre: z.string(),
    texte: z.string().describe("The digest as the e-mail's text part would read it now"),
  })
  .meta({ id: "DigestPreview" });

export const DigestRecord = z
  .object({
    id: z.uuid().describe("The digest's id: the receiver's idempotency key (X-Vigie-Delivery, the e-mail's Message-ID)"),
    node_id: z.string(),
    statut: z
      .enum(["pending", "sent", "failed", "empty"])
      .describe("pending: closed, being sent or to be sent again; empty: nothing to send"),
    ferme_a: z.iso.datetime(),
    envoye_a: z.iso.datetime().nullable(),
    total: z.int(),
    tentatives: z.int(),
    erreur: z.string().nullable(),
  })
  .meta({ id: "DigestRecord" });

export const DigestPreviewOut = z
  .object({
    workflow_id: z.uuid(),
    resumes: z.array(DigestPreview).describe("One per notify node that sends digests or has events waiting"),
    derniers: z.array(DigestRecord).describe("The workflow's last 10 digests, newest first"),
  })
  .meta({ id: "DigestPreviewOut" });

export type DigestPreviewOut = z.output<typeof DigestPreviewOut>;
