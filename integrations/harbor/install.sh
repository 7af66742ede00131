#!/bin/bash
# Installs hsearch (and Node, if the container has no Node 20+) for Harbor's installed agent (hsearch_agent.py), as
# Harbor runs an installed agent's install script: in the task's container, as its user, before the agent runs.
# Offline from the bundle that pack-bundle.mjs makes (hsearch with its dependencies and a Node binary), uploaded
# beside this script to /installed-agent/hsearch-bundle.tgz; online without it (npm install -g hsearch, Node from
# the distribution's packages). Idempotent: a second run over a finished install changes nothing.
set -euo pipefail

AGENT_DIR=${HSEARCH_AGENT_DIR:-/installed-agent}
BUNDLE=${HSEARCH_BUNDLE:-$AGENT_DIR/hsearch-bundle.tgz}
PREFIX=${HSEARCH_PREFIX:-/opt/hsearch}
BIN_DIR=${HSEARCH_BIN_DIR:-/usr/local/bin}

node_ok() {
  command -v "$1" >/dev/null 2>&1 || return 1
  local major
  major=$("$1" -p 'process.versions.node.split(".")[0]' 2>/dev/null) || return 1
  [ "$major" -ge 20 ]
}

if [ -f "$BUNDLE" ]; then
  mkdir -p "$PREFIX"
  tar -xzf "$BUNDLE" -C "$PREFIX"
  # The bundle's Node, unless the container has a Node 20+ of its own.
  if node_ok node; then node_bin=$(command -v node); else node_bin=$PREFIX/node/bin/node; fi
  node_ok "$node_bin" || { echo "install.sh: no Node 20+ in the container or the bundle" >&2; exit 1; }
  mkdir -p "$BIN_DIR"
  cat >"$BIN_DIR/hsearch" <<LAUNCH
#!/bin/sh
exec "$node_bin" "$PREFIX/hsearch/dist/cli/bin.js" "\$@"
LAUNCH
  chmod 755 "$BIN_DIR/hsearch"
else
  if ! node_ok node; then
    if command -v apt-get >/dev/null 2>&1; then
      apt-get update && apt-get install -y nodejs npm
    elif command -v apk >/dev/null 2>&1; then
      apk add --no-cache nodejs npm
    fi
  fi
  node_ok node || { echo "install.sh: Node 20+ is needed and none could be installed" >&2; exit 1; }
  npm install -g "${HSEARCH_PACKAGE:-hsearch}"
fi

hsearch --help >/dev/null
echo "install.sh: hsearch is installed ($(command -v hsearch))"
