# syntax=docker/dockerfile:1
# The API. Build from the repository root:
#   docker build -f docker/api.Dockerfile -t asset-issuance/api .
# `nest build api` compiles with tsc and rewrites the @app/* path aliases to relative requires,
# so the output runs on plain node with production dependencies only. The same image runs the
# one-shot migration: node dist/libs/database/src/migrate.cli.js
ARG NODE_IMAGE=node:20-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
# `npm install`, not `npm ci`: the lock file lists per-platform builds (anvil, litesvm) that make
# `npm ci` refuse it (see README); `npm install` installs from the same lock file.
RUN npm install --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json nest-cli.json ./
COPY apps ./apps
COPY libs ./libs
# .dockerignore keeps *.spec.ts out of the context: apps/*/tsconfig.app.json compiles libs/** and
# its spec exclusion does not reach the libs, whose specs need jest types.
RUN npx nest build api

FROM ${NODE_IMAGE} AS prod-deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm install --omit=dev --no-audit --no-fund && npm cache clean --force

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    API_HOST=0.0.0.0 \
    API_PORT=3000
WORKDIR /app
COPY --from=prod-deps /app/node_modules ./node_modules
COPY package.json ./
# dist/apps/api/{apps,libs}/... -> /app/dist/{apps,libs}/...: the relative requires still line up.
COPY --from=build /app/dist/apps/api ./dist
# The image's own `node` user (uid 1000): the process cannot change its own code.
USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.API_PORT||3000)+'/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "dist/apps/api/src/main.js"]
