import { Button, Table } from '@radix-ui/themes';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId } from 'react';
import { checkForm, teamInviteInput } from '../forms';
import { api, can, ROLES, type Invitation, type Me, type Member, type Role, type TeamInviteRequest } from '../api';
import { useStepUp } from '../step-up';
import { useToast } from '../toast';
import { Confirm, ErrorText, Field, formValues, Notice, Page } from '../ui';
import { When } from '../values';
import { ScrollTable } from '../table';

// The team: members and their roles (docs/dashboard.md, "Roles"). Owners and admins see it; only an
// owner changes an owner; the server has the last word on every rule. A role changes after the
// step-up dialog has said what the new role may do.

const ROLE_POWERS: Record<Role, string> = {
  owner: 'everything, including owners and the audit log',
  admin: 'everything but owners and the audit log',
  developer: 'keys, webhooks, plugin sites; not wallets, refunds or the team',
  viewer: 'the account and its payments; never keys or secrets',
};
const ROLE_NAMES: Record<Role, string> = { owner: 'Owner', admin: 'Admin', developer: 'Developer', viewer: 'Viewer' };
const aRole = (role: Role) => `${role === 'owner' || role === 'admin' ? 'an' : 'a'} ${role}`;

function RoleSelect({ member, me, onChange, disabled }: { member: Member; me: Me; onChange: (role: Role) => void; disabled: boolean }) {
  const id = useId();
  const mayTouch = me.user.role === 'owner' || member.role !== 'owner';
  const choices = ROLES.filter((r) => me.user.role === 'owner' || r !== 'owner');
  if (!mayTouch) return <>{member.role}</>;
  return (
    <>
      <label htmlFor={id} className="visually-hidden">
        Role of {member.email}
      </label>
      <select id={id} value={member.role} disabled={disabled} onChange={(e) => onChange(e.target.value as Role)}>
        {choices.map((r) => (
          <option key={r} value={r}>
            {r}
          </option>
        ))}
      </select>
    </>
  );
}

function Members({ me }: { me: Me }) {
  const queryClient = useQueryClient();
  const stepUp = useStepUp();
  const members = useQuery({ queryKey: ['team'], queryFn: () => api<{ members: Member[] }>('GET', '/team') });
  const toast = useToast();
  const refresh = () => void queryClient.invalidateQueries({ queryKey: ['team'] });
  const change = useMutation({
    mutationFn: ({ member, role }: { member: Member; role: Role }) =>
      stepUp(() => api('POST', `/team/${member.id}/role`, { role }), {
        what: `change the role of ${member.email}`,
        confirm: {
          title: `Make ${member.email} ${aRole(role)}?`,
          description: `${member.email} is ${aRole(member.role)} now. From their next request, as ${aRole(role)}: ${ROLE_POWERS[role]}.`,
          label: `Make them ${aRole(role)}`,
        },
      }),
    onSuccess: (_r, { member, role }) => toast(`${member.email} is now ${aRole(role)}.`),
    onSettled: refresh,
  });
  const remove = useMutation({
    mutationFn: (member: Member) => api('DELETE', `/team/${member.id}`),
    onSuccess: (_r, member) => {
      toast(`${member.email} was removed from the team.`);
      refresh();
    },
  });
  return (
    <section aria-labelledby="members">
      <h2 id="members">Members</h2>
      <ErrorText error={members.error ?? change.error ?? remove.error} />
      <ScrollTable label="Members, scrollable" head={['Email', 'Role', 'Email confirmed', '']}>
        {members.data?.members.map((m) => (
          <Table.Row key={m.id}>
            <Table.Cell>
              {m.email}
              {m.id === me.user.id && ' (you)'}
            </Table.Cell>
            <Table.Cell>
              <RoleSelect member={m} me={me} disabled={change.isPending} onChange={(role) => change.mutate({ member: m, role })} />
            </Table.Cell>
            <Table.Cell>{m.emailVerified ? 'yes' : 'no'}</Table.Cell>
            <Table.Cell>
              {(me.user.role === 'owner' || m.role !== 'owner') && (
                <Confirm
                  label={
                    <>
                      Remove<span className="visually-hidden"> {m.email}</span>
                    </>
                  }
                  title={`Remove ${m.email}?`}
                  description="They are signed out at once and can no longer sign in to this merchant; the invitations they sent that nobody accepted yet stop working. Only a new invitation brings them back."
                  confirmLabel="Remove the member"
                  onConfirm={() => remove.mutate(m)}
                  disabled={remove.isPending}
                />
              )}
            </Table.Cell>
          </Table.Row>
        ))}
      </ScrollTable>
      <h3>What each role may do</h3>
      <ul>
        {ROLES.map((r) => (
          <li key={r}>
            {ROLE_NAMES[r]}: {ROLE_POWERS[r]}
          </li>
        ))}
      </ul>
    </section>
  );
}

function Invitations({ me }: { me: Me }) {
  const queryClient = useQueryClient();
  const roleId = useId();
  const invitations = useQuery({
    queryKey: ['invitations'],
    queryFn: () => api<{ invitations: Invitation[] }>('GET', '/team/invitations'),
  });
  const refresh = () => void queryClient.invalidateQueries({ queryKey: ['invitations'] });
  const toast = useToast();
  const invite = useMutation({
    mutationFn: (values: Record<string, string>) => {
      const body: TeamInviteRequest = checkForm(teamInviteInput, values);
      return api<{ invitation: Invitation }>('POST', '/team/invitations', body);
    },
    onSuccess: (r) => {
      toast(`Invitation sent to ${r.invitation.email}.`);
      refresh();
    },
  });
  const withdraw = useMutation({ mutationFn: (id: string) => api('DELETE', `/team/invitations/${id}`), onSuccess: refresh });
  return (
    <section aria-labelledby="invitations">
      <h2 id="invitations">Invitations</h2>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          const form = e.currentTarget;
          invite.mutate(formValues(form), { onSuccess: () => form.reset() });
        }}
      >
        <Field
          label="Email address to invite"
          name="email"
          type="email"
          autoComplete="off"
          hint="They get a link that works once, for 7 days."
          error={invite.error}
        />
        <div className="field">
          <label htmlFor={roleId}>Role</label>
          <select id={roleId} name="role" defaultValue="viewer">
            {ROLES.filter((r) => me.user.role === 'owner' || r !== 'owner').map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </div>
        <ErrorText error={invite.error} />
        <Button type="submit" disabled={invite.isPending}>
          Send the invitation
        </Button>
      </form>
      <ErrorText error={invitations.error ?? withdraw.error} />
      {invitations.data && invitations.data.invitations.length > 0 && (
        <ScrollTable label="Pending invitations, scrollable" head={['Email', 'Role', 'Invited by', 'Link works until', '']}>
          {invitations.data.invitations.map((i) => (
            <Table.Row key={i.id}>
              <Table.Cell>{i.email}</Table.Cell>
              <Table.Cell>{i.role}</Table.Cell>
              <Table.Cell>{i.invitedBy}</Table.Cell>
              <Table.Cell>
                <When at={i.expiresAt} />
              </Table.Cell>
              <Table.Cell>
                {(me.user.role === 'owner' || i.role !== 'owner') && (
                  <Confirm
                    label={
                      <>
                        Withdraw<span className="visually-hidden"> the invitation to {i.email}</span>
                      </>
                    }
                    title={`Withdraw the invitation to ${i.email}?`}
                    description="Its link stops working at once."
                    confirmLabel="Withdraw the invitation"
                    onConfirm={() => withdraw.mutate(i.id)}
                    disabled={withdraw.isPending}
                  />
                )}
              </Table.Cell>
            </Table.Row>
          ))}
        </ScrollTable>
      )}
    </section>
  );
}

export function Team() {
  return (
    <Page title="Team">
      {(me) => (
        <>
          {can(me.user.role, 'team.manage') ? (
            <>
              <Members me={me} />
              <Invitations me={me} />
            </>
          ) : (
            <Notice>Only owners and admins manage the team. Ask one of them to change your role.</Notice>
          )}
        </>
      )}
    </Page>
  );
}
