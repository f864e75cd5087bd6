# One image for the service, the workers and the sandbox; compose picks the entry point.
# Built in two stages: the first checks the TypeScript (`npm run typecheck`) and compiles it
# (`npm run build`, which checks no types); both need the dev dependencies. The second holds the
# compiled JavaScript and the production dependencies only.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci
COPY . .
RUN npm run typecheck && npm run build

FROM node:20-bookworm-slim

ENV NODE_ENV=production \
    NPM_CONFIG_UPDATE_NOTIFIER=false \
    NPM_CONFIG_FUND=false \
    NPM_CONFIG_AUDIT=false

WORKDIR /app

# Manifests first, so the dependency layer is reused until they change.
COPY package.json package-lock.json tsconfig.json ./
RUN npm ci --omit=dev && npm cache clean --force

COPY --from=build /app/dist ./dist
# The workers' workflow bundle, made once here: the node user cannot write the cache at run time.
RUN node dist/scripts/bundle-workflows.js

USER node
EXPOSE 3000
CMD ["node", "dist/server.js"]
