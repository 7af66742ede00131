#!/usr/bin/env bash
# A test aid, not what users need: on a machine that reaches no container registry, stand in for the base images
# that Harbor / Terminal-Bench Dockerfiles start FROM (python:3.13-slim-bookworm, ubuntu:24.04 …), so that the
# Docker path (`tasks import-harbor --sandbox docker`) can build them. Each name gets a Debian minbase made by
# debootstrap from the machine's Debian archive, imported with `docker import`; the python:* names get Debian's
# python3, pip and venv on top with `python` and `pip` on PATH, as those images have. They are not the real images,
# which the figures measured with them must say.
#
# Which Debian release stands in for a name (the nearest this machine's archive has to what the real image carries;
# the run-time layer puts Debian's packages where a task pins PyPI ones, so their era matters as much as the OS):
#   debian:13*, *trixie*        trixie    (the same release)
#   ubuntu:24.04, ubuntu:*      trixie    (Ubuntu 24.04 forked from Debian between the two; trixie's glibc 2.41 and
#                                          Python 3.13 are as near its 2.39 and 3.12 as bookworm's 2.36 and 3.11, and
#                                          the tasks pin 2025 releases — pillow==11.2.1 — that only trixie's packages
#                                          approach: bookworm's Pillow 9.4 refuses what 11.x accepts)
#   python:*                    bookworm  (python:3.13-slim-bookworm is bookworm with its own Python 3.13 in
#                                          /usr/local: its OpenSSL 3.0, gcc 12 and mesa packages are bookworm's,
#                                          which its tasks rely on — trixie's OpenSSL 3.5 prints a certificate's
#                                          subject differently, its gcc 14 rejects `gets`, it has no
#                                          libgl1-mesa-glx; the Python here is bookworm's 3.11)
#   anything else               bookworm  (debian:bookworm-slim; debian:bullseye-slim, one release newer)
#
#   scripts/offline-base-images.sh [--root DIR] [--tasks DIR] [NAME…]
#
# --root DIR   where debootstrap makes the roots, DIR-bookworm and DIR-trixie (default /var/tmp/hsearch); each is
#              reused once complete
# --tasks DIR  also tag every FROM image named by DIR/*/environment/Dockerfile
# NAME…        image names to tag (default: the ones the published Terminal-Bench 2 Dockerfiles use)
# Needs root, debootstrap and a running docker daemon; debootstrap takes about 3–6 minutes per release, once.
set -euo pipefail

root=/var/tmp/hsearch
tasks=""
names=()
while [ $# -gt 0 ]; do
  case "$1" in
    --root) root="$2"; shift 2 ;;
    --tasks) tasks="$2"; shift 2 ;;
    -h|--help) sed -n '2,29p' "$0"; exit 0 ;;
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

release_for() {
  case "$1" in
    debian:13*|*trixie*|ubuntu:*) echo trixie ;;
    *) echo bookworm ;;
  esac
}

# Only the releases some name needs are made.
releases="$(for name in "${names[@]}"; do release_for "$name"; done | sort -u)"
for release in $releases; do
  dir="$root-$release"
  if [ ! -f "$dir/.hsearch-complete" ]; then
    echo "debootstrap --variant=minbase $release $dir $mirror (a few minutes)"
    rm -rf "$dir"
    debootstrap --variant=minbase "$release" "$dir" "$mirror"
    touch "$dir/.hsearch-complete"
  fi

  echo "docker import of $dir as hsearch-offline/debian:$release"
  tar --create --numeric-owner --exclude=./.hsearch-complete --directory "$dir" . |
    docker import --change 'CMD ["bash"]' - "hsearch-offline/debian:$release" >/dev/null

  echo "hsearch-offline/python:$release: Debian's python3, pip and venv, python and pip on PATH"
  docker build --network host --tag "hsearch-offline/python:$release" - >/dev/null <<DOCKERFILE
FROM hsearch-offline/debian:$release
RUN apt-get update && \
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      python3 python3-pip python3-venv python-is-python3 ca-certificates && \
    rm -rf /var/lib/apt/lists/* && \
    rm -f /usr/lib/python3*/EXTERNALLY-MANAGED
ENV LANG=C.UTF-8
CMD ["python3"]
DOCKERFILE
done

for name in $(printf '%s\n' "${names[@]}" | sort -u); do
  release="$(release_for "$name")"
  case "$name" in
    python:*|*/python:*) source="hsearch-offline/python:$release" ;;
    *) source="hsearch-offline/debian:$release" ;;
  esac
  docker tag "$source" "$name"
  echo "tagged $name ← $source"
done
