import { actorOf } from "../../platform/auth/context.js";
import { route, type RouteDef } from "../../platform/http/route.js";
import { presentCase } from "../cases/cases.presenter.js";
import { CaseOut } from "../cases/cases.schemas.js";
import { OrgParams } from "../organizations/organizations.schemas.js";
import { presentRisk, presentRiskDetail } from "./risks.presenter.js";
import {
  RiskCaseParams, RiskCommentIn, RiskCoverIn, RiskDetailOut, RiskIn, RiskListOut, RiskListQuery, RiskParams, RiskUpdateIn,
} from "./risks.schemas.js";
import type { RisksService } from "./risks.service.js";

const BASE = "/api/v1/organizations/:org_id/risks";
const TAGS = ["risks"];
const WRITE = "cases-write";
const EXPIRED = "the entry has expired (risque_expire)";
const COVER = `${EXPIRED}; a case is corrige or non_concerne (transition_invalide, with from and to): nothing is changed`;
const REACH = "the key is restricted to projects and the entry covers cases of others";

/** The organization's risk register; reads need no scope, writes need cases-write. */
export function risksRoutes(service: RisksService): RouteDef[] {
  return [
    route({
      operationId: "listRisks",
      method: "GET", url: BASE, auth: "both", org: true, tags: TAGS, summary: "List the register's entries (by expiry date, then title)",
      params: OrgParams, query: RiskListQuery,
      responses: { 200: RiskListOut },
      handler: async ({ org, query }) => {
        const r = await service.list(org, query);
        return { items: r.rows.map(presentRisk), total: r.total, page: query.page, page_size: query.page_size };
      },
    }),
    route({
      operationId: "createRisk",
      errors: { 409: "a case to cover is corrige or non_concerne (transition_invalide, with from and to): nothing is created" },
      method: "POST", url: BASE, auth: "both", org: true, scope: WRITE, tags: TAGS, status: 201, summary: "Create an entry, covering cases at once (all or nothing)",
      description: "expires_on is the last day of validity in Paris time, today or later. A case named in `cases` that does not exist is created, then covered.",
      params: OrgParams, body: RiskIn,
      responses: { 201: RiskDetailOut },
      handler: async ({ org, body, auth }) => {
        const r = await service.create(org, body, actorOf(auth));
        return presentRiskDetail(r.risk, r.cases);
      },
    }),
    route({
      operationId: "getRisk",
      method: "GET", url: `${BASE}/:risk_id`, auth: "both", org: true, tags: TAGS, summary: "One entry with the covered cases the key may see",
      params: RiskParams,
      responses: { 200: RiskDetailOut },
      handler: async ({ org, params }) => {
        const r = await service.get(org, params.risk_id);
        return presentRiskDetail(r.risk, r.cases);
      },
    }),
    route({
      operationId: "updateRisk",
      errors: { 403: REACH, 409: `${EXPIRED}: it cannot be brought back to life` },
      method: "PATCH", url: `${BASE}/:risk_id`, auth: "both", org: true, scope: WRITE, tags: TAGS, summary: "Change an entry (title, owner, justification, review_on, expires_on)",
      params: RiskParams, body: RiskUpdateIn,
      responses: { 200: RiskDetailOut },
      handler: async ({ org, params, body }) => {
        const r = await service.update(org, params.risk_id, body);
        return presentRiskDetail(r.risk, r.cases);
      },
    }),
    route({
      operationId: "deleteRisk",
      errors: { 403: REACH },
      method: "DELETE", url: `${BASE}/:risk_id`, auth: "both", org: true, scope: WRITE, tags: TAGS, status: 204, summary: "Withdraw an entry: the cases it covers reopen (en_analyse)",
      params: RiskParams, body: RiskCommentIn.optional(),
      responses: { 204: null },
      handler: async ({ org, params, body, auth }) => {
        await service.delete(org, params.risk_id, body?.comment ?? null, actorOf(auth));
      },
    }),
    route({
      operationId: "coverRiskCases",
      errors: { 409: COVER },
      method: "POST", url: `${BASE}/:risk_id/cases`, auth: "both", org: true, scope: WRITE, tags: TAGS, summary: "Cover cases by the entry (all or nothing): they become risque_accepte",
      description: "A case that does not exist is created (nouveau), then covered. A case's own exception is removed (the history row records it).",
      params: RiskParams, body: RiskCoverIn,
      responses: { 200: RiskDetailOut },
      handler: async ({ org, params, body, auth }) => {
        const r = await service.cover(org, params.risk_id, body.cases, body.comment ?? null, actorOf(auth));
        return presentRiskDetail(r.risk, r.cases);
      },
    }),
    route({
      operationId: "uncoverRiskCase",
      method: "DELETE", url: `${BASE}/:risk_id/cases/:project_id/:cve_id`, auth: "both", org: true, scope: WRITE, tags: TAGS, summary: "Uncover one case: it reopens (en_analyse)",
      params: RiskCaseParams, body: RiskCommentIn.optional(),
      responses: { 200: CaseOut },
      handler: async ({ org, params, body, auth }) => {
        const c = await service.uncover(org, params.risk_id, params.project_id, params.cve_id, body?.comment ?? null, actorOf(auth));
        return presentCase(c.row, c.tags);
      },
    }),
  ];
}
