import { Button } from '@radix-ui/themes';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, type Me } from '../api';
import { useStepUp } from '../step-up';
import { ErrorText, ShownOnce, SignedIn, usePageTitle } from '../ui';
import { HomeFigures } from './home';

const STATUS_TEXT: Record<Me['merchant']['status'], string> = {
  pending_review: 'Waiting for review: an operator approves new accounts. Your live key appears here once approved.',
  approved: 'Approved: you can take payments.',
  suspended: 'Suspended: your keys are refused until an operator reinstates the account.',
};

function LiveKey({ me }: { me: Me }) {
  const queryClient = useQueryClient();
  const stepUp = useStepUp();
  const [shown, setShown] = useState<string | null>(null);
  const reveal = useMutation({
    mutationFn: () => stepUp(() => api<{ ok: true; apiKey: string }>('POST', '/api-keys/live/reveal'), { what: 'reveal the live key' }),
    onSuccess: (r) => setShown(r.apiKey),
  });
  if (!me.liveKeyWaiting && shown === null) return null;
  return (
    <section aria-labelledby="live-key">
      <h2 id="live-key">Your live API key</h2>
      <p>Your account was approved and its live key issued. It can be shown once.</p>
      <ErrorText error={reveal.error} />
      <Button type="button" onClick={() => reveal.mutate()} disabled={reveal.isPending || shown !== null}>
        Reveal the live key
      </Button>
      <ShownOnce
        title="Live API key"
        value={shown}
        onClose={() => {
          setShown(null);
          void queryClient.invalidateQueries({ queryKey: ['me'] });
        }}
      />
    </section>
  );
}

export function Overview() {
  usePageTitle('Overview');
  return (
    <SignedIn>
      {(me) => (
        <>
          <h1>{me.merchant.name}</h1>
          <p>
            Signed in as {me.user.email} ({me.user.role}).
          </p>
          <section aria-labelledby="account">
            <h2 id="account">Account</h2>
            <dl>
              <dt>Merchant id</dt>
              <dd>
                <code>{me.merchant.id}</code>
              </dd>
              <dt>Status</dt>
              <dd data-testid="status">{STATUS_TEXT[me.merchant.status]}</dd>
            </dl>
          </section>
          <LiveKey me={me} />
          <HomeFigures />
        </>
      )}
    </SignedIn>
  );
}
