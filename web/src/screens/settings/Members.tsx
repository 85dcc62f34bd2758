import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useId, useRef, useState } from "react";
import { api, data } from "../../api/client";
import type { components } from "../../api/schema";
import type { Role } from "../../api/session";
import { formatDate } from "../../format";
import { useI18n, useWords } from "../../i18n/i18n";
import { errorText, issues, ROLES, roleAtLeast, useSettings } from "./access";
import { Dialog } from "./Dialog";
import { NeedsRole } from "./Settings";
import { words } from "./words";

type Member = components["schemas"]["Member"];

/** The organization's members (everyone reads); admins add, change roles and remove (owners only touch owners). */
export function Members() {
  const w = useWords(words);
  const { t, lang } = useI18n();
  const { org, role, session } = useSettings();
  const queryClient = useQueryClient();
  const members = useQuery({
    queryKey: ["members", org.id],
    queryFn: () => data(api.GET("/api/v1/organizations/{org_id}/members", { params: { path: { org_id: org.id } } })),
  });
  const [status, setStatus] = useState("");
  const [removing, setRemoving] = useState<Member | null>(null);
  const manages = roleAtLeast(role, "admin");
  // An admin changes neither an owner nor anyone to owner (the server's rule, 403 otherwise).
  const canTouch = (m: Member) => manages && (m.role !== "owner" || role === "owner");
  const changed = async (m: Member) => {
    await queryClient.invalidateQueries({ queryKey: ["members", org.id] });
    // One's own role or membership: the session's roles change.
    if (m.id === session.user.id) await queryClient.invalidateQueries({ queryKey: ["session"] });
  };
  const changeRole = useMutation({
    mutationFn: ({ m, to }: { m: Member; to: Role }) =>
      data(
        api.PATCH("/api/v1/organizations/{org_id}/members/{user_id}", {
          params: { path: { org_id: org.id, user_id: m.id } },
          body: { role: to },
        }),
      ),
    onSuccess: async (after, { m }) => {
      setStatus(w.roleChanged(after.email, t.role[after.role]));
      await changed(m);
    },
  });
  return (
    <section aria-labelledby="members-title" className="settings-panel">
      <h2 id="members-title">{w.membersTitle}</h2>
      <p className="muted">{w.membersIntro}</p>
      {!manages && <NeedsRole what={w.whatMembers} least="admin" />}
      <p role="status" className="status">
        {status}
      </p>
      {changeRole.isError && (
        <p role="alert" className="error">
          {errorText(changeRole.error, w.genericError)}
        </p>
      )}
      {members.isPending && <p>{t.loading}</p>}
      {members.isError && (
        <p role="alert" className="error">
          {errorText(members.error, w.genericError)}
        </p>
      )}
      {members.data && (
        <div className="table-wrap">
          <table>
            <caption>{w.membersCaption}</caption>
            <thead>
              <tr>
                <th scope="col">{w.colEmail}</th>
                <th scope="col">{w.colRole}</th>
                <th scope="col">{w.colJoined}</th>
                {manages && <th scope="col">{w.colActions}</th>}
              </tr>
            </thead>
            <tbody>
              {members.data.map((m) => (
                <tr key={m.id}>
                  <th scope="row">
                    {m.email} {m.id === session.user.id && <span className="sub">{w.you}</span>}
                  </th>
                  <td>
                    {manages ? (
                      <>
                        <select
                          aria-label={w.roleOf(m.email)}
                          value={m.role}
                          disabled={!canTouch(m) || changeRole.isPending}
                          onChange={(e) => changeRole.mutate({ m, to: e.target.value as Role })}
                        >
                          {ROLES.map((r) => (
                            <option key={r} value={r} disabled={r === "owner" && role !== "owner"}>
                              {t.role[r]}
                            </option>
                          ))}
                        </select>
                        {!canTouch(m) && <span className="sub">{w.ownerOnly}</span>}
                      </>
                    ) : (
                      t.role[m.role]
                    )}
                  </td>
                  <td>{formatDate(m.joined_at, lang)}</td>
                  {manages && (
                    <td>
                      <button
                        type="button"
                        className="button-danger"
                        aria-label={w.removeLabel(m.email)}
                        disabled={!canTouch(m)}
                        title={canTouch(m) ? undefined : w.ownerOnly}
                        onClick={() => setRemoving(m)}
                      >
                        {w.remove}
                      </button>
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {manages && <Invite onInvited={setStatus} />}
      {removing && (
        <RemoveMember
          member={removing}
          onDone={async (message) => {
            const m = removing;
            setRemoving(null);
            if (message) {
              setStatus(message);
              await changed(m);
            }
          }}
        />
      )}
    </section>
  );
}

function Invite({ onInvited }: { onInvited: (message: string) => void }) {
  const w = useWords(words);
  const { t } = useI18n();
  const { org, role } = useSettings();
  const queryClient = useQueryClient();
  const id = useId();
  const form = useRef<HTMLFormElement>(null);
  const password = useRef<HTMLInputElement>(null);
  const invite = useMutation({
    mutationFn: (body: components["schemas"]["MemberIn"]) =>
      data(api.POST("/api/v1/organizations/{org_id}/members", { params: { path: { org_id: org.id } }, body })),
    onSuccess: async (m) => {
      form.current?.reset();
      onInvited(w.invited(m.email, t.role[m.role]));
      await queryClient.invalidateQueries({ queryKey: ["members", org.id] });
    },
    onError: (err) => {
      if (needsPassword(err)) password.current?.focus();
    },
  });
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const pw = String(f.get("password") ?? "");
    invite.mutate({ email: String(f.get("email") ?? ""), role: String(f.get("role")) as Role, ...(pw && { password: pw }) });
  };
  const roles = ROLES.filter((r) => r !== "owner" || role === "owner");
  return (
    <form ref={form} className="settings-form" onSubmit={submit} aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>{w.invite}</h3>
      <div className="field">
        <label htmlFor={`${id}-email`}>{w.inviteEmail}</label>
        <input id={`${id}-email`} name="email" type="email" required maxLength={254} autoComplete="off" />
      </div>
      <div className="field">
        <label htmlFor={`${id}-role`}>{w.inviteRole}</label>
        <select id={`${id}-role`} name="role" defaultValue="viewer" aria-describedby={role === "owner" ? undefined : `${id}-role-hint`}>
          {roles.map((r) => (
            <option key={r} value={r}>
              {t.role[r]}
            </option>
          ))}
        </select>
        {role !== "owner" && (
          <span id={`${id}-role-hint`} className="sub">
            {w.ownerRoleHint}
          </span>
        )}
      </div>
      <div className="field">
        <label htmlFor={`${id}-password`}>{w.invitePassword}</label>
        <input
          ref={password}
          id={`${id}-password`}
          name="password"
          type="password"
          autoComplete="new-password"
          maxLength={1024}
          aria-describedby={`${id}-password-hint`}
        />
        <span id={`${id}-password-hint`} className="sub">
          {w.invitePasswordHint}
        </span>
      </div>
      {invite.isError && (
        <p role="alert" className="error">
          {needsPassword(invite.error) ? w.needPassword : errorText(invite.error, w.genericError)}
        </p>
      )}
      <button type="submit" className="button-primary" disabled={invite.isPending}>
        {invite.isPending ? w.inviting : w.invite}
      </button>
    </form>
  );
}

/** The server's 422 on `email` for an address with no account and no password: give one to create it. */
function needsPassword(err: unknown): boolean {
  return issues(err).some((i) => i.loc.join(".") === "body.email" && i.msg.includes("password"));
}

function RemoveMember({ member, onDone }: { member: Member; onDone: (message?: string) => void }) {
  const w = useWords(words);
  const { org } = useSettings();
  const remove = useMutation({
    mutationFn: () =>
      data(api.DELETE("/api/v1/organizations/{org_id}/members/{user_id}", { params: { path: { org_id: org.id, user_id: member.id } } })),
    onSuccess: () => onDone(w.removed(member.email)),
  });
  return (
    <Dialog title={w.removeTitle} onClose={() => onDone()}>
      <p>{w.removeText(member.email)}</p>
      {remove.isError && (
        <p role="alert" className="error">
          {errorText(remove.error, w.genericError)}
        </p>
      )}
      <div className="dialog-actions">
        <button type="button" className="button-secondary" onClick={() => onDone()}>
          {w.cancel}
        </button>
        <button type="button" className="button-danger" onClick={() => remove.mutate()} disabled={remove.isPending}>
          {w.remove}
        </button>
      </div>
    </Dialog>
  );
}
