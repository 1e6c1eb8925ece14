#!/usr/bin/env bash
# The API tests (PGlite) once more on the current Node LTS, beside the machine's Node 20 that runs everything
# else. The LTS binary comes from the npm registry's `node` package (it pulls node-<os>-<arch> from the same
# registry), installed into node_modules/.cache so `npm ci` clears it. When the next LTS comes (every October),
# change NODE_LTS here and in README's "Node" section. TEST_DB=pg runs the same files on PostgreSQL instead.
set -euo pipefail
cd "$(dirname "$0")/.."

NODE_LTS="${NODE_LTS:-26}"
dir="node_modules/.cache/node-lts-$NODE_LTS"
if [ ! -x "$dir/node_modules/.bin/node" ]; then
  mkdir -p "$dir"
  # Its own package.json, so npm installs here and not into the workspace above.
  echo '{ "private": true }' >"$dir/package.json"
  npm install --prefix "$dir" --no-save --no-audit --no-fund --loglevel=error "node@$NODE_LTS"
fi
lts_node="$PWD/$dir/node_modules/.bin/node"
echo "Node $("$lts_node" --version) from the npm registry"

# Vitest forks its workers with the Node that runs it (process.execPath), so every test file runs on the LTS.
cd apps/server
TEST_DB="${TEST_DB:-pglite}" "$lts_node" ../../node_modules/vitest/vitest.mjs run "$@"
