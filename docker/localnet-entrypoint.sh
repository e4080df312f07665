#!/bin/sh
# apps/localnet binds 127.0.0.1 only: anvil is started with a fixed `--host 127.0.0.1` and
# apps/localnet/src/main.ts passes no host to the Solana server. Other containers could not reach
# that, so the chains run on loopback ports (EVM_PORT, SOLANA_RPC_PORT, SOLANA_WS_PORT) and socat
# forwards the usual ports from every interface. Once the localnet takes a host option, set it to
# 0.0.0.0, use the usual ports and drop this shim.
set -eu
forward() {
  socat "TCP-LISTEN:$1,fork,reuseaddr,bind=0.0.0.0" "TCP:127.0.0.1:$2" &
}
forward 8545 "$EVM_PORT"
forward 8899 "$SOLANA_RPC_PORT"
forward 8900 "$SOLANA_WS_PORT"
exec node -r @swc-node/register apps/localnet/src/main.ts
