#!/usr/bin/env bash
# A test aid, not what users need: on a machine that reaches no container registry, stand in for the base images
# that Harbor / Terminal-Bench Dockerfiles start FROM (python:3.13-slim-bookworm, ubuntu:24.04 …), so that the
# Docker path (`tasks import-harbor --sandbox docker`) can build them. Every name gets a Debian bookworm minbase made
# by debootstrap from the machine's Debian archive, imported with `docker import`; the python:* names get Debian's
# python3, pip and venv on top with `python` and `pip` on PATH, as those images have. They are not the real images
# (an "ubuntu:24.04" here is Debian bookworm, its Python 3.11), which the figures measured with them must say.
#
#   scripts/offline-base-images.sh [--root DIR] [--tasks DIR] [NAME…]
#
# --root DIR   where debootstrap makes the root (default /var/tmp/hsearch-bookworm-root); reused once complete
# --tasks DIR  also tag every FROM image named by DIR/*/environment/Dockerfile
# NAME…        image names to tag (default: the ones the published Terminal-Bench 2 Dockerfiles use)
# Needs root, debootstrap and a running docker daemon; debootstrap takes about 3–6 minutes once.
set -euo pipefail

root=/var/tmp/hsearch-bookworm-root
tasks=""
names=()
while [ $# -gt 0 ]; do
  case "$1" in
    --root) root="$2"; shift 2 ;;
    --tasks) tasks="$2"; shift 2 ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    *) names+=("$1"); shift ;;
  esac
done
if [ ${#names[@]} -eq 0 ] && [ -z "$tasks" ]; then
  names=(python:3.13-slim-bookworm ubuntu:24.04 python:3.11-slim python:3.10-slim-bookworm
    debian:bullseye-slim debian:13.0-slim python:3.11 debian:bookworm-slim)
fi
if [ -n "$tasks" ]; then
  # FROM lines name base images and earlier stages; only names with a tag or a registry path are images.
  while read -r name; do names+=("$name"); done < <(
    grep -hiE '^FROM[[:space:]]' "$tasks"/*/environment/Dockerfile | awk '{for (i = 2; i <= NF; i++) if ($i !~ /^--/) { print $i; break }}' |
      grep -E '[:/]' | sort -u
  )
fi

command -v debootstrap >/dev/null || { echo "debootstrap is not installed: apt-get install debootstrap" >&2; exit 1; }
docker info >/dev/null 2>&1 || { echo "no docker daemon answers (dockerd --iptables=false --bridge=none &)" >&2; exit 1; }

# The archive this machine's apt uses, so debootstrap reaches what apt-get does (deb822 URIs: or one-line deb).
mirror="$(
  { grep -hE '^URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '{print $2}'
    grep -hE '^deb[[:space:]]' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null | awk '{print $2}'
  } | grep -v security | head -1
)" || true
mirror="${mirror:-http://deb.debian.org/debian}"

if [ ! -f "$root/.hsearch-complete" ]; then
  echo "debootstrap --variant=minbase bookworm $root $mirror (a few minutes)"
  rm -rf "$root"
  debootstrap --variant=minbase bookworm "$root" "$mirror"
  touch "$root/.hsearch-complete"
fi

echo "docker import of $root as hsearch-offline/debian:bookworm"
tar --create --numeric-owner --exclude=./.hsearch-complete --directory "$root" . |
  docker import --change 'CMD ["bash"]' - hsearch-offline/debian:bookworm >/dev/null

echo "hsearch-offline/python:bookworm: Debian's python3, pip and venv, python and pip on PATH"
docker build --network host --tag hsearch-offline/python:bookworm - >/dev/null <<'EOF'
FROM hsearch-offline/debian:bookworm
RUN apt-get update && \
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      python3 python3-pip python3-venv python-is-python3 ca-certificates && \
    rm -rf /var/lib/apt/lists/* && \
    rm -f /usr/lib/python3*/EXTERNALLY-MANAGED
ENV LANG=C.UTF-8
CMD ["python3"]
EOF

for name in $(printf '%s\n' "${names[@]}" | sort -u); do
  case "$name" in
    python:*|*/python:*) source=hsearch-offline/python:bookworm ;;
    *) source=hsearch-offline/debian:bookworm ;;
  esac
  docker tag "$source" "$name"
  echo "tagged $name ← $source"
done
