import { useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { api, type ApiRequest, type Me } from '../api';
import { ErrorText, SignedIn, usePageTitle } from '../ui';

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
      <div className="table-scroll" role="region" aria-label="API calls" tabIndex={0}>
        <table>
          <thead>
            <tr>
              <th scope="col">Time</th>
              <th scope="col">Request</th>
              <th scope="col">Status</th>
              <th scope="col">Request id</th>
              <th scope="col">Key</th>
            </tr>
          </thead>
          <tbody>
            {log.data?.requests.map((r) => (
              <tr key={r.requestId + r.at} data-testid="request">
                <td>
                  <time dateTime={r.at}>{new Date(r.at).toLocaleString()}</time>
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
          </tbody>
        </table>
      </div>
    </>
  );
}

function Allowed({ me }: { me: Me }) {
  if (me.user.role === 'viewer') return <p>Your role does not give access to the request log.</p>;
  return <RequestLog />;
}

export function Requests() {
  usePageTitle('Request log');
  return (
    <SignedIn>
      {(me) => (
        <>
          <p>
            <Link to="/developers">Back to Developers</Link>
          </p>
          <h1>Request log</h1>
          <Allowed me={me} />
        </>
      )}
    </SignedIn>
  );
}
