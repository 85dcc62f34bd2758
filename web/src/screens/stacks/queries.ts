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
