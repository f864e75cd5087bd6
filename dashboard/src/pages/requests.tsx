import { Table } from '@radix-ui/themes';
import { useQuery } from '@tanstack/react-query';
import { api, type ApiRequest } from '../api';
import { DeveloperPage, EmptyState, ErrorText } from '../ui';
import { When } from '../values';
import { ScrollTable } from '../table';

function RequestLog() {
  const log = useQuery({
    queryKey: ['request-log'],
    queryFn: () => api<{ retentionDays: number; requests: ApiRequest[] }>('GET', '/request-log'),
  });
  return (
    <>
      {log.data && <p>The newest 100 calls your API keys made, kept {log.data.retentionDays} days. Never a body, a query or a secret.</p>}
      <ErrorText error={log.error} />
      {log.data && log.data.requests.length === 0 && (
        <EmptyState title="No API call yet">Each call your keys make to the v1 API is listed here, about a second after it.</EmptyState>
      )}
      <ScrollTable label="API calls" head={['Time', 'Request', 'Status', 'Request id', 'Key']}>
        {log.data?.requests.map((r) => (
          <Table.Row key={r.requestId + r.at} data-testid="request">
            <Table.Cell>
              <When at={r.at} />
            </Table.Cell>
            <Table.Cell>
              <code>
                {r.method} {r.path}
              </code>
            </Table.Cell>
            <Table.Cell>{r.statusCode}</Table.Cell>
            <Table.Cell>
              <code>{r.requestId}</code>
            </Table.Cell>
            <Table.Cell>
              <code>{r.key.shown ?? r.key.id}</code>
            </Table.Cell>
          </Table.Row>
        ))}
      </ScrollTable>
    </>
  );
}

export function Requests() {
  return (
    <DeveloperPage title="Request log" forbidden="Your role does not give access to the request log.">
      <RequestLog />
    </DeveloperPage>
  );
}
