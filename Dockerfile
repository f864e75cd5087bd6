# The service, the worker and the sandbox share one image; compose picks the entry point.
FROM node:20-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm install --omit=dev --no-audit --no-fund
COPY . .
USER node
CMD ["npx", "tsx", "server.ts"]
