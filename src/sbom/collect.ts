/**
 * What every reader shares: the faults found so far (at most 100: reading stops at the hundredth),
 * and the components in document order, merged.
 */
import { type SbomComponent, type SbomFault, SbomInvalid } from "./types.js";

export const MAX_FAULTS = 100;

/** The faults of one document; `add` throws once MAX_FAULTS are known, `done` throws if any. */
export class Faults {
  readonly list: SbomFault[] = [];

  add(faults: SbomFault[]): void {
    for (const f of faults) {
      this.list.push(f);
      if (this.list.length >= MAX_FAULTS) throw this.invalid();
    }
  }

  invalid(): SbomInvalid {
    const n = this.list.length;
    const more = n >= MAX_FAULTS ? ` (lecture arrêtée à ${MAX_FAULTS} erreurs)` : "";
    return new SbomInvalid(
      `Le document n'est pas conforme à son schéma : ${n} erreur${n > 1 ? "s" : ""}${more}.`,
      this.list.slice(0, MAX_FAULTS),
    );
  }

  done(): void {
    if (this.list.length > 0) throw this.invalid();
  }
}

/** A text field: a non-empty string, else null. */
export function text(v: unknown): string | null {
  return typeof v === "string" && v.trim() !== "" ? v : null;
}

/**
 * Components in document order with the merge rule: one entry per (purl, CPE) pair, the first one
 * kept; a component with neither is kept once per (name, version), as it cannot be told apart otherwise.
 * Slots are reserved when a component begins, so that a parent precedes the components it nests even
 * though those end first.
 */
export class ComponentList {
  private readonly slots: (SbomComponent | null)[] = [];
  private readonly open = new Map<number, number>();
  private readonly seen = new Set<string>();
  count = 0;

  /** A component (streamed item `seq`) begins: its place is taken. */
  reserve(seq: number): void {
    this.open.set(seq, this.slots.length);
    this.slots.push(null);
  }

  /** The component of item `seq` (null: nothing to keep), in the place reserved for it or last. */
  set(seq: number, c: SbomComponent | null): void {
    const slot = this.open.get(seq);
    if (slot === undefined) this.slots.push(c);
    else {
      this.open.delete(seq);
      this.slots[slot] = c;
    }
  }

  /** The merged list, in document order, without the components `skip` sets apart. */
  result(skip?: (c: SbomComponent) => boolean): SbomComponent[] {
    const out: SbomComponent[] = [];
    this.count = 0;
    this.seen.clear();
    for (const c of this.slots) {
      if (!c || skip?.(c)) continue;
      this.count++;
      const key = c.purl || c.cpe ? `p\u0000${c.purl ?? ""}\u0000${c.cpe ?? ""}` : `n\u0000${c.name}\u0000${c.version ?? ""}`;
      if (this.seen.has(key)) continue;
      this.seen.add(key);
      out.push(c);
    }
    return out;
  }
}
