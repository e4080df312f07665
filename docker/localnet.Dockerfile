# syntax=docker/dockerfile:1
# Development only: the local chains (anvil for every EVM network, chain id 31337; a Solana
# JSON-RPC + WebSocket server over LiteSVM), as `npm run localnet` runs them. anvil and litesvm
# are dev dependencies, so this image keeps them and runs the TypeScript source with swc-node.
# State lives in /data (a volume in compose.yaml).
ARG NODE_IMAGE=node:20-slim

FROM ${NODE_IMAGE}
RUN apt-get update \
  && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends socat \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm install --no-audit --no-fund && npm cache clean --force
COPY tsconfig.json ./
COPY apps/localnet ./apps/localnet
COPY libs ./libs
COPY docker/localnet-entrypoint.sh /usr/local/bin/localnet-entrypoint
RUN mkdir -p /data && chown node:node /data && chmod 0755 /usr/local/bin/localnet-entrypoint
# apps/localnet listens on 127.0.0.1 only, so it runs on these loopback ports and the entrypoint
# publishes 8545 / 8899 / 8900 on every interface (see localnet-entrypoint.sh).
ENV LOCALNET_DATA_DIR=/data \
    EVM_PORT=18545 \
    SOLANA_RPC_PORT=18899 \
    SOLANA_WS_PORT=18900
USER node
VOLUME /data
EXPOSE 8545 8899 8900
HEALTHCHECK --interval=5s --timeout=5s --start-period=30s --retries=5 \
  CMD ["node", "-e", "const rpc=(u,m)=>fetch(u,{method:'POST',headers:{'content-type':'application/json'},body:JSON.stringify({jsonrpc:'2.0',id:1,method:m,params:[]})}).then(r=>{if(!r.ok)throw r.status});Promise.all([rpc('http://127.0.0.1:8545','eth_chainId'),rpc('http://127.0.0.1:8899','getHealth')]).then(()=>process.exit(0),()=>process.exit(1))"]
ENTRYPOINT ["/usr/local/bin/localnet-entrypoint"]
