import { api, data } from "../../api/client";

type Path = { org_id: string; project_id: string };

/** A page of the project's monitored URLs (newest first). */
export const urlsQuery = (path: Path, page: number, pageSize = 20) => ({
  queryKey: ["monitored-urls", path.project_id, { page, pageSize }],
  queryFn: () =>
    data(
      api.GET("/api/v1/organizations/{org_id}/projects/{project_id}/monitored-urls", {
        params: { path, query: { page, page_size: pageSize } },
      }),
    ),
});

/** One monitored URL with the technologies of its last answer. */
export const urlQuery = (path: Path, urlId: string) => ({
  queryKey: ["monitored-urls", path.project_id, urlId],
  queryFn: () =>
    data(
      api.GET("/api/v1/organizations/{org_id}/projects/{project_id}/monitored-urls/{url_id}", {
        params: { path: { ...path, url_id: urlId } },
      }),
    ),
});

/** Adds a detected technology to a stack (its CPE with the detected version): the new item and the alerts it raised. */
export const watchTechnology = (path: Path, urlId: string, name: string, stackId: string) =>
  data(
    api.POST("/api/v1/organizations/{org_id}/projects/{project_id}/monitored-urls/{url_id}/technologies/{name}/watch", {
      params: { path: { ...path, url_id: urlId, name } },
      body: { stack_id: stackId },
    }),
  );
