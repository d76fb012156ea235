#!/usr/bin/env bash
# Installs oidc-provider (serve/auth/package.json, pinned by package-lock.json) into
# serve/auth/node_modules (ignored by git), once: the authorization server that
# toolmodel-rmcp's tests/authorization.rs, benches/auth.rs and `public` guide, toolmodel-tests'
# auth_discovery and browser tests, and toolmodel-cli's tests/gateway.rs start
# (serve/auth/provider.mjs).
# Needs node >= 20 and npm.
set -euo pipefail
cd "$(dirname "$0")"
if [[ -d node_modules/oidc-provider ]]; then
    echo "ok: oidc-provider $(node -p "require('./node_modules/oidc-provider/package.json').version") installed"
    exit 0
fi
npm ci --no-audit --no-fund --loglevel=error
echo "ok: oidc-provider $(node -p "require('./node_modules/oidc-provider/package.json').version") installed"
