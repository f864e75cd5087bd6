# One image for the service, the workers and the sandbox; compose picks the entry point.
# TypeScript runs through tsx (a runtime dependency), so there is no build stage.
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
# The workers' workflow bundle, made once here: the node user cannot write the cache at run time.
RUN npx tsx scripts/bundle-workflows.ts

USER node
EXPOSE 3000
CMD ["npx", "tsx", "server.ts"]
