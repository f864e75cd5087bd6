import { Button, Table } from '@radix-ui/themes';
import { useInfiniteQuery } from '@tanstack/react-query';
import { api, can, type AuditEntry } from '../api';
import { ErrorText, Notice, Page } from '../ui';
import { When } from '../values';
import { ScrollTable } from '../table';

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
            <Table.Row key={e.id}>
              <Table.Cell>
                <When at={e.at} />
              </Table.Cell>
              <Table.Cell>{e.actor.email}</Table.Cell>
              <Table.Cell>
                <code>{e.action}</code>
              </Table.Cell>
              <Table.Cell>{e.target ? <code>{e.target}</code> : '—'}</Table.Cell>
              <Table.Cell>{e.details ? <code>{JSON.stringify(e.details)}</code> : '—'}</Table.Cell>
              <Table.Cell>{e.ip}</Table.Cell>
            </Table.Row>
          ))}
      </ScrollTable>
      {log.hasNextPage && (
        <Button type="button" variant="soft" onClick={() => void log.fetchNextPage()} disabled={log.isFetchingNextPage}>
          Older entries
        </Button>
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
          {can(me.user.role, 'audit.read') ? <Entries /> : <Notice>Only owners read the audit log.</Notice>}
        </>
      )}
    </Page>
  );
}
