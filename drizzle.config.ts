import { defineConfig } from 'drizzle-kit';

// Only `drizzle-kit generate` uses this; migrations are applied by src/db/migrate.ts at start-up.
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/db/schema/index.ts',
  out: './src/db/migrations',
});
