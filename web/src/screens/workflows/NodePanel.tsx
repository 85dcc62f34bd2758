import { useId, useState } from "react";
import { useWords } from "../../i18n/i18n";
import {
  ACTION_PARAMS,
  ACTIONS,
  type ApiNode,
  type ConditionNode,
  EVENTS,
  type EventName,
  FIELDS,
  type FieldName,
  isMasked,
  namespacesOf,
  OPERATORS_BY_TYPE,
  type ParamSpec,
  type Rule,
  SEVERITIES,
  TRIGGER_PARAMS,
} from "./catalog";
import type { NodeIssue } from "./Canvas";
import { words } from "./words";

type Params = Record<string, unknown>;

/** The messages of the issues on one parameter path (`params.url`, `rules.0.value`…). */
function issuesAt(issues: NodeIssue[], path: string): string[] {
  return issues.filter((i) => i.field === path || i.field?.startsWith(`${path}.`)).map((i) => i.msg);
}

/** A labelled control with its errors (aria-invalid, aria-describedby). */
function Field({
  label,
  errors,
  children,
}: {
  label: string;
  errors: string[];
  children: (id: string, described: object) => React.ReactNode;
}) {
  const id = useId();
  const errId = `${id}-err`;
  const described = errors.length ? { "aria-invalid": true, "aria-describedby": errId } : {};
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {children(id, described)}
      {errors.length > 0 && (
        <span id={errId} className="wf-field-error">
          {errors.join(" ; ")}
        </span>
      )}
    </div>
  );
}

/** A comma-separated list, edited as typed (the list is parsed on each change). */
function ListInput({ id, value, onChange, described }: { id: string; value: unknown; onChange(v: string[]): void; described: object }) {
  const [text, setText] = useState(Array.isArray(value) ? value.join(", ") : "");
  return (
    <input
      id={id}
      {...described}
      value={text}
      onChange={(e) => {
        setText(e.target.value);
        onChange(
          e.target.value
            .split(",")
            .map((s) => s.trim())
            .filter(Boolean),
        );
      }}
    />
  );
}

/** A parameter's control by its kind. A secret shows the masked value the server answered and takes a new one. */
function ParamField({
  spec,
  params,
  issues,
  onChange,
}: {
  spec: ParamSpec;
  params: Params;
  issues: NodeIssue[];
  onChange(p: Params): void;
}) {
  const w = useWords(words);
  const value = params[spec.name];
  const set = (v: unknown) => {
    const next = { ...params };
    if (v === undefined || v === "") delete next[spec.name];
    else next[spec.name] = v;
    onChange(next);
  };
  const errors = issuesAt(issues, `params.${spec.name}`);
  if (spec.kind === "secret") {
    const stored = isMasked(value) ? value : null;
    return (
      <Field label={w.secretReplace(spec.name)} errors={errors}>
        {(id, described) => (
          <>
            <span className="sub">{stored ? w.secretSet(stored) : w.secretNone}</span>
            <input
              id={id}
              type="password"
              autoComplete="off"
              {...described}
              // Never the stored value: empty until the user types a new secret; empty again keeps the stored one.
              value={stored ? "" : String(value ?? "")}
              placeholder={stored ? w.secretHint : ""}
              onChange={(e) => set(e.target.value === "" ? (stored ?? undefined) : e.target.value)}
            />
          </>
        )}
      </Field>
    );
  }
  return (
    <Field label={spec.name} errors={errors}>
      {(id, described) => {
        switch (spec.kind) {
          case "number":
            return (
              <input
                id={id}
                type="number"
                {...described}
                min={spec.min}
                max={spec.max}
                step={spec.step ?? 1}
                value={typeof value === "number" ? value : ""}
                onChange={(e) => set(e.target.value === "" ? undefined : Number(e.target.value))}
              />
            );
          case "boolean":
            return (
              <select
                id={id}
                {...described}
                value={value === undefined ? "" : String(value)}
                onChange={(e) => set(e.target.value === "" ? undefined : e.target.value === "true")}
              >
                <option value="">{w.unset}</option>
                <option value="true">{w.yes}</option>
                <option value="false">{w.no}</option>
              </select>
            );
          case "select":
            return (
              <select id={id} {...described} value={String(value ?? "")} onChange={(e) => set(e.target.value || undefined)}>
                <option value="">{w.unset}</option>
                {spec.options.map((o) => (
                  <option key={o} value={o}>
                    {o}
                  </option>
                ))}
              </select>
            );
          case "list":
            return <ListInput id={id} value={value} onChange={set} described={described} />;
          case "longtext":
            return <textarea id={id} {...described} value={String(value ?? "")} onChange={(e) => set(e.target.value)} />;
          default:
            return (
              <input
                id={id}
                type={spec.kind === "url" ? "url" : "text"}
                {...described}
                value={String(value ?? "")}
                onChange={(e) => set(e.target.value)}
              />
            );
        }
      }}
    </Field>
  );
}

/** A rule's value, typed by its field and operator. */
function parseValue(field: FieldName, op: Rule["op"], text: string): unknown {
  const type = FIELDS[field];
  const one = (s: string) => (type === "number" ? Number(s) : s);
  if (op === "in" || op === "not_in")
    return text
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean)
      .map(one);
  return one(text);
}

function RuleEditor({
  rule,
  index,
  event,
  issues,
  onChange,
  onRemove,
}: {
  rule: Rule;
  index: number;
  event: EventName | null;
  issues: NodeIssue[];
  onChange(r: Rule): void;
  onRemove(): void;
}) {
  const w = useWords(words);
  const fields = (Object.keys(FIELDS) as FieldName[]).filter((f) => !event || namespacesOf(event).includes(f.split(".")[0]!));
  const type = FIELDS[rule.field];
  const ops = OPERATORS_BY_TYPE[type];
  const base = `rules.${index}`;
  const noValue = rule.op === "exists" || rule.op === "not_exists";
  const list = rule.op === "in" || rule.op === "not_in";
  return (
    <fieldset className="wf-rule">
      <legend>{w.rule(index)}</legend>
      <Field label={w.field} errors={issuesAt(issues, `${base}.field`)}>
        {(id, d) => (
          <select
            id={id}
            {...d}
            value={rule.field}
            onChange={(e) => {
              const field = e.target.value as FieldName;
              const op = OPERATORS_BY_TYPE[FIELDS[field]].includes(rule.op) ? rule.op : OPERATORS_BY_TYPE[FIELDS[field]][0]!;
              onChange({ field, op, value: FIELDS[field] === "boolean" ? true : undefined });
            }}
          >
            {fields.map((f) => (
              <option key={f} value={f}>
                {f}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label={w.op} errors={issuesAt(issues, `${base}.op`)}>
        {(id, d) => (
          <select id={id} {...d} value={rule.op} onChange={(e) => onChange({ ...rule, op: e.target.value as Rule["op"] })}>
            {ops.map((o) => (
              <option key={o} value={o}>
                {o}
              </option>
            ))}
          </select>
        )}
      </Field>
      {!noValue && (
        <Field label={list ? `${w.value} (${w.valueListHint})` : w.value} errors={issuesAt(issues, `${base}.value`)}>
          {(id, d) =>
            type === "boolean" && !list ? (
              <select
                id={id}
                {...d}
                value={String(rule.value ?? "")}
                onChange={(e) => onChange({ ...rule, value: e.target.value === "true" })}
              >
                <option value="true">{w.yes}</option>
                <option value="false">{w.no}</option>
              </select>
            ) : type === "severity" && !list ? (
              <select id={id} {...d} value={String(rule.value ?? "")} onChange={(e) => onChange({ ...rule, value: e.target.value })}>
                <option value="">{w.unset}</option>
                {SEVERITIES.map((s) => (
                  <option key={s} value={s}>
                    {s}
                  </option>
                ))}
              </select>
            ) : (
              <input
                id={id}
                {...d}
                type={type === "number" && !list ? "number" : "text"}
                step="any"
                defaultValue={Array.isArray(rule.value) ? rule.value.join(", ") : String(rule.value ?? "")}
                onChange={(e) =>
                  onChange({ ...rule, value: e.target.value === "" ? undefined : parseValue(rule.field, rule.op, e.target.value) })
                }
              />
            )
          }
        </Field>
      )}
      <button type="button" className="button-secondary" onClick={onRemove}>
        {w.removeRule(index)}
      </button>
    </fieldset>
  );
}

export interface NodePanelProps {
  node: ApiNode;
  event: EventName | null;
  issues: NodeIssue[];
  readOnly: boolean;
  onChange(node: ApiNode): void;
  onClose(): void;
}

/** The side panel: one node's parameters (event, rules, action and its params). */
export function NodePanel({ node, event, issues, readOnly, onChange, onClose }: NodePanelProps) {
  const w = useWords(words);
  const general = issues.filter((i) => i.field === null || i.field === "id").map((i) => i.msg);
  return (
    <aside className="wf-panel" aria-labelledby="wf-panel-title">
      <h2 id="wf-panel-title">{w.panelTitle(node.id)}</h2>
      {general.length > 0 && (
        <ul className="wf-field-error">
          {general.map((m) => (
            <li key={m}>{m}</li>
          ))}
        </ul>
      )}
      <fieldset disabled={readOnly} className="wf-plain">
        {node.type === "trigger" && (
          <>
            <Field label={w.event} errors={issuesAt(issues, "event")}>
              {(id, d) => (
                <select
                  id={id}
                  {...d}
                  value={node.event}
                  onChange={(e) => onChange({ ...node, event: e.target.value as EventName, params: {} })}
                >
                  {EVENTS.map((ev) => (
                    <option key={ev} value={ev}>
                      {ev}
                    </option>
                  ))}
                </select>
              )}
            </Field>
            {(TRIGGER_PARAMS[node.event] ?? []).map((spec) => (
              <ParamField
                key={spec.name}
                spec={spec}
                params={node.params ?? {}}
                issues={issues}
                onChange={(params) => onChange({ ...node, params })}
              />
            ))}
          </>
        )}
        {node.type === "condition" && <ConditionFields node={node} event={event} issues={issues} onChange={onChange} />}
        {node.type === "action" && (
          <>
            <Field label={w.actionKind} errors={issuesAt(issues, "action")}>
              {(id, d) => (
                <select
                  id={id}
                  {...d}
                  value={node.action}
                  onChange={(e) => onChange({ ...node, action: e.target.value as typeof node.action, params: {} })}
                >
                  {ACTIONS.map((a) => (
                    <option key={a} value={a}>
                      {a}
                    </option>
                  ))}
                </select>
              )}
            </Field>
            {ACTION_PARAMS[node.action].map((spec) => (
              <ParamField
                key={`${node.action}.${spec.name}`}
                spec={spec}
                params={node.params ?? {}}
                issues={issues}
                onChange={(params) => onChange({ ...node, params })}
              />
            ))}
            {node.action.startsWith("notify_") && (
              <DeliveryFields params={node.params ?? {}} issues={issues} onChange={(params) => onChange({ ...node, params })} />
            )}
            <Field label={w.onError} errors={issuesAt(issues, "on_error")}>
              {(id, d) => (
                <select
                  id={id}
                  {...d}
                  value={node.on_error}
                  onChange={(e) => onChange({ ...node, on_error: e.target.value as "continue" | "stop" })}
                >
                  <option value="continue">{w.onErrorContinue}</option>
                  <option value="stop">{w.onErrorStop}</option>
                </select>
              )}
            </Field>
          </>
        )}
      </fieldset>
      <button type="button" className="button-secondary" onClick={onClose}>
        {w.closePanel}
      </button>
    </aside>
  );
}

function ConditionFields({
  node,
  event,
  issues,
  onChange,
}: {
  node: ConditionNode;
  event: EventName | null;
  issues: NodeIssue[];
  onChange(n: ApiNode): void;
}) {
  const w = useWords(words);
  const setRules = (rules: Rule[]) => onChange({ ...node, rules });
  return (
    <>
      <Field label={w.match} errors={issuesAt(issues, "match")}>
        {(id, d) => (
          <select id={id} {...d} value={node.match} onChange={(e) => onChange({ ...node, match: e.target.value as "all" | "any" })}>
            <option value="all">{w.matchAll}</option>
            <option value="any">{w.matchAny}</option>
          </select>
        )}
      </Field>
      {issues
        .filter((i) => i.field === "rules")
        .map((i) => (
          <p key={i.msg} className="wf-field-error">
            {i.msg}
          </p>
        ))}
      {node.rules.map((rule, i) => (
        <RuleEditor
          // biome-ignore lint/suspicious/noArrayIndexKey: rules have no id; their position is their identity (as in the API's loc)
          key={`${i}:${rule.field}:${rule.op}`}
          rule={rule}
          index={i}
          event={event}
          issues={issues}
          onChange={(r) => setRules(node.rules.map((x, j) => (j === i ? r : x)))}
          onRemove={() => setRules(node.rules.filter((_, j) => j !== i))}
        />
      ))}
      <button
        type="button"
        className="button-secondary"
        onClick={() => setRules([...node.rules, { field: "cve.cvss_score", op: "gte", value: 9 }])}
      >
        {w.addRule}
      </button>
    </>
  );
}

type Delivery = {
  mode: "immediate" | "digest";
  every?: "hourly" | "daily" | "weekly";
  hour?: number;
  weekday?: number;
  empty?: "skip" | "rien_a_signaler";
};

/**
 * A notify action's `delivery` (docs/digests.md): at once, or in an hourly, daily or weekly digest
 * at a Paris hour, and what an empty period sends. Immediate removes the parameter (what a workflow
 * written before digests holds).
 */
function DeliveryFields({ params, issues, onChange }: { params: Params; issues: NodeIssue[]; onChange(p: Params): void }) {
  const w = useWords(words);
  const current = (params.delivery ?? { mode: "immediate" }) as Delivery;
  const digest = current.mode === "digest";
  const every = current.every ?? "daily";
  const set = (next: Partial<Delivery>) => {
    const merged = { ...current, ...next };
    const out = { ...params };
    if (merged.mode === "immediate") delete out.delivery;
    else out.delivery = merged;
    onChange(out);
  };
  return (
    <>
      <Field label={w.delivery} errors={issuesAt(issues, "params.delivery.mode")}>
        {(id, d) => (
          <select
            id={id}
            {...d}
            value={current.mode}
            onChange={(e) =>
              set(e.target.value === "digest" ? { mode: "digest", every: "daily", hour: 8, empty: "skip" } : { mode: "immediate" })
            }
          >
            <option value="immediate">{w.deliveryImmediate}</option>
            <option value="digest">{w.deliveryDigest}</option>
          </select>
        )}
      </Field>
      {digest && (
        <>
          <Field label={w.every} errors={issuesAt(issues, "params.delivery.every")}>
            {(id, d) => (
              <select id={id} {...d} value={every} onChange={(e) => set({ every: e.target.value as Delivery["every"] })}>
                <option value="hourly">{w.everyHourly}</option>
                <option value="daily">{w.everyDaily}</option>
                <option value="weekly">{w.everyWeekly}</option>
              </select>
            )}
          </Field>
          {every === "weekly" && (
            <Field label={w.weekday} errors={issuesAt(issues, "params.delivery.weekday")}>
              {(id, d) => (
                <select id={id} {...d} value={current.weekday ?? 1} onChange={(e) => set({ weekday: Number(e.target.value) })}>
                  {w.weekdays.map((day, i) => (
                    <option key={day} value={i + 1}>
                      {day}
                    </option>
                  ))}
                </select>
              )}
            </Field>
          )}
          {every !== "hourly" && (
            <Field label={w.hour} errors={issuesAt(issues, "params.delivery.hour")}>
              {(id, d) => (
                <input
                  id={id}
                  type="number"
                  {...d}
                  min={0}
                  max={23}
                  value={current.hour ?? 8}
                  onChange={(e) => set({ hour: e.target.value === "" ? 8 : Number(e.target.value) })}
                />
              )}
            </Field>
          )}
          <Field label={w.emptyPeriod} errors={issuesAt(issues, "params.delivery.empty")}>
            {(id, d) => (
              <select id={id} {...d} value={current.empty ?? "skip"} onChange={(e) => set({ empty: e.target.value as Delivery["empty"] })}>
                <option value="skip">{w.emptySkip}</option>
                <option value="rien_a_signaler">{w.emptyNothing}</option>
              </select>
            )}
          </Field>
        </>
      )}
    </>
  );
}
