import { api, data } from "../../api/client";

type Path = { org_id: string; project_id: string };

/** The project's stacks with their items (and each item's EOL facts). */
export const stacksQuery = (path: Path) => ({
  queryKey: ["stacks", path.project_id],
  queryFn: () => data(api.GET("/api/v1/organizations/{org_id}/projects/{project_id}/stacks", { params: { path } })),
});

/** One stack. */
export const stackQuery = (path: Path, stackId: string) => ({
  queryKey: ["stacks", path.project_id, stackId],
  queryFn: () =>
    data(
      api.GET("/api/v1/organizations/{org_id}/projects/{project_id}/stacks/{stack_id}", {
        params: { path: { ...path, stack_id: stackId } },
      }),
    ),
});

/** The SBOM documents loaded in a stack, oldest first. */
export const sbomsQuery = (path: Path, stackId: string) => ({
  queryKey: ["stacks", path.project_id, stackId, "sboms"],
  queryFn: () =>
    data(
      api.GET("/api/v1/organizations/{org_id}/projects/{project_id}/stacks/{stack_id}/sboms", {
        params: { path: { ...path, stack_id: stackId } },
      }),
    ),
});

/** How many items a page of the stack's list holds. */
export const ITEMS_PAGE_SIZE = 50;

export interface ItemsFilter {
  q?: string;
  sbom_id?: string;
  page: number;
}

/** One page of a stack's items (a stack loaded from an SBOM may hold tens of thousands). */
export const itemsQuery = (path: Path, stackId: string, f: ItemsFilter) => ({
  queryKey: ["stacks", path.project_id, stackId, "items", f],
  queryFn: () =>
    data(
      api.GET("/api/v1/organizations/{org_id}/projects/{project_id}/stacks/{stack_id}/items", {
        params: {
          path: { ...path, stack_id: stackId },
          query: { ...(f.q && { q: f.q }), ...(f.sbom_id && { sbom_id: f.sbom_id }), page: f.page, page_size: ITEMS_PAGE_SIZE },
        },
      }),
    ),
});
