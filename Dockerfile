# One image for the three services; SERVICE picks which one runs.
# Build:  docker build -t platform .
# Run:    docker run -e SERVICE=offers-api -e DATABASE_URL=... -e REDIS_URL=... -e ADMIN_API_KEY=...
#           -e OFFERS_PUBLIC_URL=https://... platform   (production needs the service's *_PUBLIC_URL)

FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json prisma.config.ts ./
COPY scripts/prisma-generate.cjs scripts/
COPY prisma ./prisma
# the typed clients are npm workspaces of the root package: npm install links them
COPY clients ./clients
# postinstall generates the Prisma client into libs/platform/src/database/generated
RUN npm install --no-audit --no-fund
COPY . .
RUN npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/prisma ./prisma
USER node
ENV SERVICE=offers-api
# `migrate` is a valid SERVICE too: applies prisma/migrations and exits.
CMD ["sh", "-c", "if [ \"$SERVICE\" = migrate ]; then exec node dist/scripts/migrate.js; else exec node dist/apps/$SERVICE/src/main.js; fi"]
