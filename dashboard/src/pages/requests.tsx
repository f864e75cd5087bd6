import { useQuery } from '@tanstack/react-query';
import { api, type ApiRequest } from '../api';
import { DeveloperPage, ErrorText, ScrollTable, When } from '../ui';

function RequestLog() {
  const log = useQuery({
    queryKey: ['request-log'],
    queryFn: () => api<{ retentionDays: number; requests: ApiRequest[] }>('GET', '/request-log'),
  });
  return (
    <>
      {log.data && <p>The newest 100 calls your API keys made, kept {log.data.retentionDays} days. Never a body, a query or a secret.</p>}
      <ErrorText error={log.error} />
      {log.data && log.data.requests.length === 0 && <p>No API call yet.</p>}
      <ScrollTable label="API calls" head={['Time', 'Request', 'Status', 'Request id', 'Key']}>
        {log.data?.requests.map((r) => (
          <tr key={r.requestId + r.at} data-testid="request">
            <td>
              <When at={r.at} />
            </td>
            <td>
              <code>
                {r.method} {r.path}
              </code>
            </td>
            <td>{r.statusCode}</td>
            <td>
              <code>{r.requestId}</code>
            </td>
            <td>
              <code>{r.key.shown ?? r.key.id}</code>
            </td>
          </tr>
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
