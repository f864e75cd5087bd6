import { ensureDashboardBuild } from '../src/devtools/dashboard-build';

// `npm run build:dashboard`: the dashboard's files into dist/dashboard (skipped when already built
// from the same sources). npm start and npm test run the same step themselves; the Dockerfile runs this.
ensureDashboardBuild(console.log).then(
  ({ built, dir }) => console.log(`dashboard: ${dir}${built ? '' : ' (already built)'}`),
  (err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
