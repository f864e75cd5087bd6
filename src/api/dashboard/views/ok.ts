import { z } from 'zod';

// The dashboard's answers as zod schemas, apart from their route modules (one file per area): zod,
// domain lists and other view modules only (the operators' views they reuse among them), so
// dashboard/src/api.ts takes their output types without compiling the routes, whose Fastify plugins
// the dashboard's compiler does not see.

/** Every dashboard answer but a file's says `ok: true`. */
export const ok = z.literal(true);
