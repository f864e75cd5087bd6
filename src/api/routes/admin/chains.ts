import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ChainSettings } from '../../../config';
import { redactRpcUrl } from '../../../domain/rpc-url';

const chainView = z.object({
  network: z.string(),
  chainId: z.number().int(),
  rpcUrl: z.string(),
  confirmations: z.number().int(),
  tokens: z.object({ USDC: z.string().nullable(), USDT: z.string().nullable() }),
  treasury: z.string().nullable(),
  sweeper: z.string().nullable(),
});

// What the chain verifiers watch, for an operator checking a deployment. The RPC URL of
// a hosted node carries its API key, so only its host and shape are shown; the mnemonic never is,
// only the treasury address derived from it (the entry point derives it and hands it in).
const adminChainRoutes: FastifyPluginAsyncZod<{ chains: ChainSettings; treasuryAddress: string | null }> = async (
  app,
  { chains, treasuryAddress },
) => {
  app.get(
    '/chains',
    {
      schema: {
        tags: ['admin'],
        security: [{ adminToken: [] }],
        summary: 'The EVM networks with a chain verifier: chain id, RPC host, confirmations, token contracts, treasury, deposit sweeper',
        description:
          'Read from the configuration. The RPC URL keeps its host; an API key in its user info, query or a key-like path segment is shown as ***.',
        response: { 200: z.object({ ok: z.literal(true), chains: z.array(chainView) }) },
      },
    },
    async () => ({
      ok: true as const,
      chains: chains.networks.map((c) => ({
        network: c.network,
        chainId: c.chainId,
        rpcUrl: redactRpcUrl(c.rpcUrl),
        confirmations: c.confirmations,
        tokens: { USDC: c.tokens.USDC, USDT: c.tokens.USDT },
        treasury: treasuryAddress,
        sweeper: c.sweeper ?? null,
      })),
    }),
  );
};

export default adminChainRoutes;
