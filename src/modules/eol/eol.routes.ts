import { route, type RouteDef } from "../../platform/http/route.js";
import { ProjectParams } from "../projects/projects.schemas.js";
import { presentNotice, presentProduct, presentProductDetail, presentSub } from "./eol.presenter.js";
import {
  EolFromStackOut, EolNoticeListOut, EolPastDueOut, EolNoticeListQuery, EolProductDetailOut, EolProductListOut, EolProductListQuery, EolProductParams,
  EolSubIn, EolSubOut, EolSubParams,
} from "./eol.schemas.js";
import type { EolService } from "./eol.service.js";
import { z } from "zod";

const PRODUCTS = "/api/v1/eol/products";
const SUBS = "/api/v1/organizations/:org_id/projects/:project_id/eol-subscriptions";
const TAGS = ["eol"];
const WRITE = "eol-write";

/** endoflife.date products (reads, no scope) and the project's subscriptions (writes need eol-write). */
export function eolRoutes(service: EolService): RouteDef[] {
  return [
    route({
      operationId: "listEolProducts",
      method: "GET", url: PRODUCTS, auth: "both", tags: TAGS, summary: "endoflife.date products, by id (filters q, category)",
      query: EolProductListQuery,
      responses: { 200: EolProductListOut },
      handler: async ({ query }) => {
        const { rows, total } = await service.listProducts(query);
        return { items: rows.map(presentProduct), total, page: query.page, page_size: query.page_size };
      },
    }),
    route({
      operationId: "getEolProduct",
      method: "GET", url: `${PRODUCTS}/:product_id`, auth: "both", tags: TAGS, summary: "One product with every release cycle, newest first",
      params: EolProductParams,
      responses: { 200: EolProductDetailOut },
      handler: async ({ params }) => {
        const { product, cycles } = await service.product(params.product_id);
        return presentProductDetail(product, cycles);
      },
    }),
    route({
      operationId: "listEolSubscriptions",
      method: "GET", url: SUBS, auth: "both", project: true, tags: TAGS, summary: "The project's EOL subscriptions, oldest first",
      params: ProjectParams,
      responses: { 200: z.array(EolSubOut) },
      handler: async ({ project }) => (await service.subscriptions(project)).map(presentSub),
    }),
    route({
      operationId: "createEolSubscription",
      errors: { 409: "the project is already subscribed to this product and cycle (abonnement_existant, with subscription_id)" },
      method: "POST", url: SUBS, auth: "both", project: true, scope: WRITE, tags: TAGS, status: 201,
      summary: "Subscribe the project to a product's cycle (cycle null: every cycle)",
      description: "product_id must be an endoflife.date product and cycle one of its cycles (else 422 on that field). The eol-notices job then writes eol.approaching notify_before_*_days before the end of life / of active support and eol.reached on the day (Paris time).",
      params: ProjectParams, body: EolSubIn,
      responses: { 201: EolSubOut },
      handler: async ({ project, body }) => presentSub(await service.subscribe(project, body)),
    }),
    route({
      operationId: "subscribeEolFromStack",
      method: "POST", url: `${SUBS}/from-stack`, auth: "both", project: true, scope: WRITE, tags: TAGS,
      summary: "Subscribe the project to every cycle its stack items run (CPE, purl or vendor:product with a version)",
      params: ProjectParams,
      responses: { 200: EolFromStackOut },
      handler: async ({ project }) => {
        const r = await service.subscribeFromStack(project);
        return { created: r.created.map(presentSub), existing: r.existing.map(presentSub) };
      },
    }),
    route({
      operationId: "getEolSubscription",
      method: "GET", url: `${SUBS}/:subscription_id`, auth: "both", project: true, tags: TAGS, summary: "One EOL subscription",
      params: EolSubParams,
      responses: { 200: EolSubOut },
      handler: async ({ project, params }) => presentSub(await service.subscription(project, params.subscription_id)),
    }),
    route({
      operationId: "deleteEolSubscription",
      method: "DELETE", url: `${SUBS}/:subscription_id`, auth: "both", project: true, scope: WRITE, tags: TAGS, status: 204,
      summary: "Unsubscribe (the notices already written go with it)",
      params: EolSubParams,
      responses: { 204: null },
      handler: async ({ project, params }) => {
        await service.unsubscribe(project, params.subscription_id);
      },
    }),
    route({
      operationId: "listEolPastDue",
      method: "GET", url: "/api/v1/organizations/:org_id/projects/:project_id/eol-past-due", auth: "both", project: true, tags: TAGS,
      summary: "The cycles the project subscribes to or its stack runs whose end of life has come (Paris day), oldest first",
      params: ProjectParams,
      responses: { 200: EolPastDueOut },
      handler: ({ project }) => service.pastDue(project),
    }),
    route({
      operationId: "listEolNotices",
      method: "GET", url: "/api/v1/organizations/:org_id/projects/:project_id/eol-notices", auth: "both", project: true, tags: TAGS,
      summary: "The project's EOL notices (approaching, reached), newest first",
      params: ProjectParams, query: EolNoticeListQuery,
      responses: { 200: EolNoticeListOut },
      handler: async ({ project, query }) => {
        const { rows, total } = await service.notices(project, query);
        return { items: rows.map(presentNotice), total, page: query.page, page_size: query.page_size };
      },
    }),
  ];
}
