import { useQuery } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { api, data } from "../../api/client";
import { useI18n, useWords } from "../../i18n/i18n";
import { formatDay } from "./dates";
import { words } from "./words";

/** GET …/eol-past-due: the cycles the project subscribes to or its stack runs whose end of life has come. */
export function usePastDue(orgId: string, projectId: string) {
  return useQuery({
    queryKey: ["eol-past-due", projectId],
    queryFn: () =>
      data(
        api.GET("/api/v1/organizations/{org_id}/projects/{project_id}/eol-past-due", {
          params: { path: { org_id: orgId, project_id: projectId } },
        }),
      ),
  });
}

/** The past-due cycles, oldest end first (home and the calendar show them before what is to come). */
export function PastDueList({
  projectId,
  items,
}: {
  projectId: string;
  items: { product_id: string; product_name: string; cycle: string; eol: string | null; subscribed: boolean; stack_items: number }[];
}) {
  const w = useWords(words);
  const { lang } = useI18n();
  if (!items.length) return null;
  return (
    <ul className="eol-past-due">
      {items.map((i) => (
        <li key={`${i.product_id} ${i.cycle}`}>
          <span className="badge badge-bad">{w.pastDueBadge}</span> <strong>{`${i.product_name} ${i.cycle}`}</strong>{" "}
          {i.eol ? w.pastDueSince(formatDay(i.eol, lang)) : w.pastDueUndated}
          {i.stack_items > 0 && (
            <>
              {" "}
              (
              <Link to="/p/$projectId/stacks" params={{ projectId }}>
                {w.pastDueItems(i.stack_items)}
              </Link>
              )
            </>
          )}
          {i.subscribed && <span className="muted"> — {w.pastDueSubscribed}</span>}
        </li>
      ))}
    </ul>
  );
}
