import { useInfiniteQuery } from '@tanstack/react-query';
import { api, can, type AuditEntry } from '../api';
import { ErrorText, Page, ScrollTable, When } from '../ui';

// Who did what in the dashboard, newest first, 100 at a time; the whole log as CSV. Owners only.

function Entries() {
  const log = useInfiniteQuery({
    queryKey: ['audit-log'],
    queryFn: ({ pageParam }) =>
      api<{ entries: AuditEntry[]; nextBefore: number | null }>('GET', `/audit-log${pageParam ? `?before=${pageParam}` : ''}`),
    initialPageParam: 0,
    getNextPageParam: (last) => last.nextBefore ?? undefined,
  });
  return (
    <>
      <p>
        <a href="/dashboard/api/audit-log.csv" download>
          Download the audit log as CSV
        </a>
      </p>
      <ErrorText error={log.error} />
      <ScrollTable label="Audit log, scrollable" head={['Time', 'Who', 'Action', 'On', 'Details', 'From']}>
        {log.data?.pages
          .flatMap((p) => p.entries)
          .map((e) => (
            <tr key={e.id}>
              <td>
                <When at={e.at} />
              </td>
              <td>{e.actor.email}</td>
              <td>
                <code>{e.action}</code>
              </td>
              <td>{e.target ? <code>{e.target}</code> : '—'}</td>
              <td>{e.details ? <code>{JSON.stringify(e.details)}</code> : '—'}</td>
              <td>{e.ip}</td>
            </tr>
          ))}
      </ScrollTable>
      {log.hasNextPage && (
        <button type="button" className="secondary" onClick={() => void log.fetchNextPage()} disabled={log.isFetchingNextPage}>
          Older entries
        </button>
      )}
    </>
  );
}

export function AuditLog() {
  return (
    <Page title="Audit log">
      {(me) => (
        <>
          <p>Every action a person took in this dashboard: who, what, when and from which address. Never a key or a secret.</p>
          {can(me.user.role, 'audit.read') ? <Entries /> : <p>Only owners read the audit log.</p>}
        </>
      )}
    </Page>
  );
}
