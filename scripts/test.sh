#!/usr/bin/env bash
# `npm test` and `npm run test:e2e` (and CI, through `npm test`): make sure every program and service the suite uses
# is here, then run vitest with the arguments given. One place, so the README's command and CI cannot drift apart.
#   As root it apt-installs what is missing and starts a docker daemon if none answers (stopped again at the end).
#   Not as root it names what is missing and the one command that installs it, and exits 2: a test that cannot run
#   is never skipped. Quick when everything is present (no apt-get update then).
set -euo pipefail
cd "$(dirname "$0")/.."

# program (or probe) -> Debian package. The terminal suite runs bash, git, make, gcc, g++, jq and python3 inside its
# sandbox (g++ and python3 also build the native modules when npm ci finds no prebuilt binary); the sandbox uses
# unshare, setpriv, prlimit, ip and bubblewrap (test/envs/terminal/sandbox-detect.test.ts checks none is dropped);
# imported Harbor tasks run their tests with python3 -m pytest; the container backend and the Harbor Docker path use
# a docker daemon, and a task's prebuilt image is pulled from a docker-registry the test starts on 127.0.0.1; the
# workers' tests start their own redis-server; test/cli/narrow-terminal.e2e.test.ts runs the CLI in tmux; the
# browser tests drive Debian's Chromium through playwright-core; the Harbor installed agent's tests drive it with
# python3 through a stand-in of Harbor's interface, which imports jinja2 and pydantic.
needs=(
  "bash bash" "git git" "make make" "gcc gcc" "g++ g++" "jq jq" "python3 python3"
  "unshare util-linux" "setpriv util-linux" "prlimit util-linux" "ip iproute2" "bwrap bubblewrap"
  "pytest python3-pytest" "dockerd docker.io" "docker docker.io" "docker-registry docker-registry"
  "redis-server redis-server" "tmux tmux"
  "chromium chromium" "jinja2 python3-jinja2" "pydantic python3-pydantic"
)
present() {
  case "$1" in
    pytest) /usr/bin/python3 -m pytest --version >/dev/null 2>&1 ;;
    jinja2 | pydantic) python3 -c "import $1" >/dev/null 2>&1 ;;
    chromium) [ -x /usr/bin/chromium ] ;;
    *) command -v "$1" >/dev/null 2>&1 ;;
  esac
}
root=false
[ "$(id -u)" = 0 ] && root=true

# Docker 20.10 needs the cgroup hierarchies mounted; a machine without an init system (a chroot, a bare container)
# may have none, which Debian's cgroupfs-mount mounts as the docker package's init script would.
cgroups_mounted() { [ -n "$(ls -A /sys/fs/cgroup 2>/dev/null)" ]; }
docker_up() { docker info >/dev/null 2>&1; }

missing=()
for need in "${needs[@]}"; do
  read -r program package <<<"$need"
  present "$program" || [[ " ${missing[*]} " == *" $package "* ]] || missing+=("$package")
done
if ! cgroups_mounted && ! command -v cgroupfs-mount >/dev/null 2>&1 && ! { present docker && docker_up; }; then
  missing+=(cgroupfs-mount)
fi

if [ ${#missing[@]} -gt 0 ]; then
  if ! $root; then
    echo "npm test: the suite needs Debian packages that are not installed: ${missing[*]}" >&2
    echo "  install them:  sudo apt-get install -y ${missing[*]}" >&2
    exit 2
  fi
  echo "npm test: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get -o DPkg::Lock::Timeout=600 install -y -qq "${missing[@]}" >/dev/null
fi

dockerd_pid=
stop_dockerd() {
  [ -n "$dockerd_pid" ] || return 0
  kill "$dockerd_pid" 2>/dev/null || true
  for _ in $(seq 30); do kill -0 "$dockerd_pid" 2>/dev/null || break; sleep 1; done
}
if ! docker_up; then
  if ! $root; then
    echo "npm test: no docker daemon answers ('docker info' fails); the container tests need one." >&2
    echo "  start it:  sudo dockerd --iptables=false --bridge=none &   (or: sudo systemctl start docker)" >&2
    exit 2
  fi
  cgroups_mounted || cgroupfs-mount
  log=$(mktemp /tmp/hsearch-test-dockerd.XXXXXX)
  # No iptables rules and no bridge: the tests' containers run without a network, and the daemon starts where the
  # machine cannot change its firewall (a chroot, an unprivileged container).
  dockerd --iptables=false --bridge=none >"$log" 2>&1 &
  dockerd_pid=$!
  trap stop_dockerd EXIT
  for _ in $(seq 60); do docker_up && break; sleep 1; done
  if ! docker_up; then
    echo "npm test: dockerd did not start; its log ($log) ends:" >&2
    tail -n 15 "$log" >&2
    exit 1
  fi
  echo "npm test: started docker daemon $(docker info --format '{{.ServerVersion}}') (stopped when the tests end)"
fi

# Not exec: the trap stops the daemon this script started once vitest is done.
status=0
npx vitest run "$@" || status=$?
exit "$status"
