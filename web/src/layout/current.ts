import { useSyncExternalStore } from "react";
import type { Session } from "../api/session";

// The organization and project the user works in, chosen in the shell's switcher and kept in
// localStorage (a project id; its organization follows from the session).

const KEY = "vigie.project";
const listeners = new Set<() => void>();

function read(): string | null {
  try {
    return localStorage.getItem(KEY);
  } catch {
    return null;
  }
}

let chosen = read();

/** The project chosen last (it may no longer be the session's: see `current`). */
export function currentProjectId(): string | null {
  return chosen;
}

/** Chooses the current project (null: the organization's first). */
export function chooseProject(projectId: string | null): void {
  if (chosen === projectId) return;
  chosen = projectId;
  try {
    if (projectId) localStorage.setItem(KEY, projectId);
    else localStorage.removeItem(KEY);
  } catch {
    // Private mode: the choice lasts for this page only.
  }
  for (const l of listeners) l();
}

type Org = Session["organizations"][number];
type Project = Org["projects"][number];

/** The current organization and project among the session's: the chosen one, else the first there is. */
export function current(session: Session, projectId: string | null): { org: Org | null; project: Project | null } {
  for (const org of session.organizations) {
    const project = org.projects.find((p) => p.id === projectId);
    if (project) return { org, project };
  }
  const org = session.organizations[0] ?? null;
  return { org, project: org?.projects[0] ?? null };
}

export function useCurrent(session: Session): { org: Org | null; project: Project | null } {
  const projectId = useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => chosen,
  );
  return current(session, projectId);
}
