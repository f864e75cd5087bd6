# One image for the service, the workers and the sandbox; compose picks the entry point.
# TypeScript runs through tsx (a runtime dependency); only the merchant dashboard's browser code is
# built, in a stage of its own with the development dependencies (Vite, React), and its files copied.
FROM node:20-bookworm-slim AS dashboard
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY dashboard ./dashboard
COPY src/devtools/dashboard-build.ts ./src/devtools/
COPY scripts/build-dashboard.ts ./scripts/
RUN npx tsx scripts/build-dashboard.ts

FROM node:20-bookworm-slim

ENV NODE_ENV=production \
    NPM_CONFIG_UPDATE_NOTIFIER=false \
    NPM_CONFIG_FUND=false \
    NPM_CONFIG_AUDIT=false

WORKDIR /app

# Manifests first, so the dependency layer is reused until they change.
COPY package.json package-lock.json ./
RUN npm ci --omit=dev && npm cache clean --force

COPY . .
COPY --from=dashboard /app/dist/dashboard ./dist/dashboard
# The workers' workflow bundle, made once here: the node user cannot write the cache at run time.
RUN npx tsx scripts/bundle-workflows.ts

USER node
EXPOSE 3000
CMD ["npx", "tsx", "server.ts"]
