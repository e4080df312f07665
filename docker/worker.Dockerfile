# syntax=docker/dockerfile:1
# The worker: signs, sends and confirms chain transactions. Build from the repository root:
#   docker build -f docker/worker.Dockerfile -t asset-issuance/worker .
# Scale it by running more containers (see README "Deployment"). Compiled as the API is (see
# api.Dockerfile): `nest build worker`, then plain node on production dependencies only.
ARG NODE_IMAGE=node:20-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm install --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json nest-cli.json ./
COPY apps ./apps
COPY libs ./libs
RUN npx nest build worker

FROM ${NODE_IMAGE} AS prod-deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm install --omit=dev --no-audit --no-fund && npm cache clean --force

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY --from=prod-deps /app/node_modules ./node_modules
COPY package.json ./
COPY --from=build /app/dist/apps/worker ./dist
USER node
# The worker serves no HTTP: healthy means it can reach what it needs to take jobs.
HEALTHCHECK --interval=15s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "const R=require('ioredis'),{Client:P}=require('pg');const r=new R(process.env.REDIS_URL,{lazyConnect:true,maxRetriesPerRequest:1});const p=new P({connectionString:process.env.DATABASE_URL});Promise.all([r.connect().then(()=>r.ping()),p.connect().then(()=>p.query('SELECT 1'))]).then(()=>process.exit(0),()=>process.exit(1))"]
# SIGTERM (docker stop) lets the worker finish or release its jobs before it exits.
STOPSIGNAL SIGTERM
CMD ["node", "dist/apps/worker/src/main.js"]
