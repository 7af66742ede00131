/**
 * The container backend. A fake `docker` on PATH always runs (it speaks the supervisor's protocol and records its
 * command lines, which are checked exactly); the real engine runs the same episode end to end where `docker info`
 * answers — which of the two happened is printed, and CI starts the daemon where it can (.ci/run).
 */
import { execFileSync } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { hostEntries, sandboxUserFor } from "../../../src/envs/terminal/sandbox-host";
import { BASE_ENV } from "../../../src/envs/terminal/sandbox-plan";
import { SUPERVISOR_SCRIPT } from "../../../src/envs/terminal/session-plan";
import { terminalEnvOptions } from "../../../src/envs/terminal/task-options";
import { createTerminalEnv } from "../../../src/envs/terminal/terminal-env";
import { runVerifier } from "../../../src/envs/terminal/verifier";
import { TaskSetupError } from "../../../src/envs/types";
import { dockerDaemon } from "../../helpers/docker-daemon";

const agent = (step: number) => ({ step, author: "agent" as const });
const temps: string[] = [];
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

/** A fake engine: records each invocation (NUL-separated argv, then RS); `run` answers every request. */
const FAKE_DOCKER = `#!/bin/bash
{ printf '%s\\0' "$@"; printf '\\036'; } >> "$FAKE_DOCKER_LOG"
case "$1" in
  image) exit 1 ;;
  import|rm|cp|create|commit) exit 0 ;;
  run)
    field() { IFS= read -r -d '' "$1"; }
    printf 'ready\\n'
    while field id && field marker && field secs && field cpu && field data && field as && field nproc &&
      field fsize && field input && field merge && field nenv; do
      for ((i = 0; i < nenv; i++)); do field kv; done
      field nargv; argv=()
      for ((i = 0; i < nargv; i++)); do field a; argv+=("$a"); done
      { printf '@request\\0%s\\0' "\${argv[*]}"; printf '\\036'; } >> "$FAKE_DOCKER_LOG"
      printf 'fake ran: %s\\n' "\${argv[*]}"
      status=0; [[ "\${argv[*]}" == *fake-failure* ]] && status=1
      printf '%s' "$marker"; printf '%s' "$marker" >&2; printf '%s %s\\n' "$id" "$status"
    done ;;
  *) exit 3 ;;
esac
`;

/** The engine's invocations in order (`@request` records: a command the fake supervisor was sent). */
function records(log: string): string[][] {
  return readFileSync(log, "utf8")
    .split("\x1e")
    .filter((record) => record !== "")
    .map((line) => line.split("\0").slice(0, -1));
}

function invocations(log: string): string[][] {
  return records(log).filter((record) => record[0] !== "@request");
}

/** The fake engine first on PATH, logging to a fresh file, until `restore`. */
function installFakeDocker(): { log: string; restore: () => void } {
  const dir = mkdtempSync(join(tmpdir(), "hsearch-fake-docker-"));
  temps.push(dir);
  const log = join(dir, "calls.log");
  writeFileSync(join(dir, "docker"), FAKE_DOCKER);
  chmodSync(join(dir, "docker"), 0o755);
  const saved = { PATH: process.env.PATH, FAKE_DOCKER_LOG: process.env.FAKE_DOCKER_LOG };
  process.env.PATH = `${dir}:${process.env.PATH}`;
  process.env.FAKE_DOCKER_LOG = log;
  const restore = () => {
    process.env.PATH = saved.PATH;
    if (saved.FAKE_DOCKER_LOG === undefined) delete process.env.FAKE_DOCKER_LOG;
    else process.env.FAKE_DOCKER_LOG = saved.FAKE_DOCKER_LOG;
  };
  return { log, restore };
}

describe("the container backend", () => {
  it("with a fake docker on PATH: imports the base image once, runs one container per episode, removes it", async () => {
    const { log, restore } = installFakeDocker();
    try {
      const env = await createTerminalEnv({
        files: { "a.txt": "a" },
        container: "docker",
        limits: { maxProcs: 64 },
      });
      const result = await env.call("bash", { command: "echo hi" }, agent(1));
      expect(result.output).toBe("fake ran: /bin/bash -c echo hi\n");
      const { dir: envDir, workspace, tmp } = env;
      await env.close();

      const calls = invocations(log);
      expect(calls.map((call) => call.slice(0, 2).join(" "))).toEqual([
        "image inspect",
        "import " + calls[1]?.[1],
        `run -i`,
        "rm --force",
      ]);
      const tag = calls[0]?.[4] ?? "";
      expect(tag).toMatch(/^hsearch-base:[0-9a-f]{16}$/);
      expect(calls[0]).toEqual(["image", "inspect", "--format", "{{.Id}}", tag]);
      expect(calls[1]).toEqual(["import", expect.stringMatching(/\/root\.tar$/), tag]);
      const run = calls[2] ?? [];
      const name = run[4] ?? "";
      expect(name).toMatch(/^hsearch-[0-9a-f]{16}$/);
      expect(calls[3]).toEqual(["rm", "--force", name]);
      const user = sandboxUserFor(workspace);
      const volumes = [
        ...hostEntries()
          .filter((entry) => entry.kind === "dir")
          .map((entry) => `/${entry.name}:/${entry.name}:ro`),
        "/var/lib:/var/lib:ro",
        ...(process.geteuid?.() === 0
          ? [`${envDir}/passwd:/etc/passwd:ro`, `${envDir}/group:/etc/group:ro`]
          : []),
        `${workspace}:/workspace`,
        `${workspace}:/app`,
        `${tmp}:/tmp`,
      ].flatMap((volume) => ["--volume", volume]);
      const afterShm = [
        `${envDir}/verifier/tests:/tests:ro`,
        `${envDir}/verifier/logs:/logs`,
        `${envDir}/control:/.hsearch:ro`,
      ].flatMap((volume) => ["--volume", volume]);
      const root = process.geteuid?.() === 0;
      expect(run).toEqual([
        "run",
        "-i",
        "--rm",
        "--name",
        name,
        "--network",
        "none",
        "--cap-drop",
        "ALL",
        ...["SETUID", "SETGID", "SETPCAP", "KILL", "CHOWN"].flatMap((cap) => ["--cap-add", cap]),
        "--pids-limit",
        "80",
        "--ipc",
        "private",
        "--hostname",
        "sandbox",
        ...Object.entries(BASE_ENV).flatMap(([key, value]) => ["--env", `${key}=${value}`]),
        ...volumes,
        "--tmpfs",
        "/dev/shm:rw,nosuid,nodev,size=64m",
        ...afterShm,
        "--workdir",
        "/workspace",
        tag,
        "/bin/bash",
        "-c",
        expect.stringContaining(SUPERVISOR_SCRIPT),
        "hsearch-supervisor",
        expect.stringMatching(/\/timeout$/),
        ...(root
          ? [
              expect.stringMatching(/\/setpriv$/),
              `--reuid=${user.uid}`,
              `--regid=${user.gid}`,
              "--clear-groups",
              "--no-new-privs",
              "--inh-caps=-all",
              "--bounding-set=-all",
              "--",
            ]
          : []),
      ]);
      const script = String(run[run.indexOf("-c") + 1]);
      expect(script.startsWith("exec 4>&1\n")).toBe(true);
      if (root) expect(script).toContain(`chown ${user.uid}:${user.gid} / /root /home /srv`);
    } finally {
      restore();
    }
  });

  it("with a fake docker: builds a task's image once, reuses it in the next episode, rebuilds when the setup changes", async () => {
    const { log, restore } = installFakeDocker();
    const episode = async (setup: string) => {
      writeFileSync(log, "");
      const env = await createTerminalEnv({ files: { "a.txt": "a" }, setup, container: "docker" });
      await env.close();
      return invocations(log);
    };
    const verbs = (calls: string[][]) => calls.map((call) => call[0]);
    try {
      const first = await episode("echo built > b.txt");
      const inspect = first.filter((call) => call[0] === "image");
      const taskTag = inspect.at(-1)?.[4] ?? "";
      expect(taskTag).toMatch(/^hsearch-task:[0-9a-f]{16}$/);
      // Built: a kept container runs the setup, gets the workspace, and is committed as the task's image.
      const build = first.find((call) => call[0] === "run") ?? [];
      expect(build).not.toContain("--rm");
      const builder = build[build.indexOf("--name") + 1];
      expect(first.find((call) => call[0] === "commit")).toEqual(["commit", builder, taskTag]);
      expect(first.find((call) => call[0] === "cp")?.[2]).toBe(`${builder}:/.hsearch-workspace`);
      // The setup was sent to the build container, before its commit, and never again.
      const sent = records(log).map((record) =>
        record[0] === "@request" ? `request ${record[1]}` : record[0],
      );
      expect(sent.filter((verb) => verb?.startsWith("request"))).toEqual([
        "request /bin/bash -c echo built > b.txt",
      ]);
      expect(sent.indexOf("request /bin/bash -c echo built > b.txt")).toBeLessThan(sent.indexOf("commit"));
      const runs = first.filter((call) => call[0] === "run");
      expect(runs).toHaveLength(2);
      expect(runs[1]).toContain("--rm");
      expect(runs[1]).toContain(taskTag);
      // Reused: no setup, no build; the workspace comes out of the image.
      const second = await episode("echo built > b.txt");
      expect(verbs(second)).toEqual(["create", "cp", "rm", "run", "rm"]);
      expect(second[0]?.slice(-2)).toEqual([taskTag, "/bin/true"]);
      expect(second[1]?.[1]).toMatch(/:\/\.hsearch-workspace\/\.$/);
      expect(second[3]).toContain(taskTag);
      // Changed: another tag, built again.
      const third = await episode("echo rebuilt > b.txt");
      const otherTag = third.find((call) => call[0] === "commit")?.[2];
      expect(otherTag).toMatch(/^hsearch-task:[0-9a-f]{16}$/);
      expect(otherTag).not.toBe(taskTag);
    } finally {
      restore();
    }
  });

  it("with a fake docker: a failing setup is the task's setup error, and no image is committed", async () => {
    const { log, restore } = installFakeDocker();
    try {
      const made = createTerminalEnv({ files: { "a.txt": "a" }, setup: "fake-failure", container: "docker" });
      await expect(made).rejects.toSatisfy((error) => error instanceof TaskSetupError);
      await expect(made).rejects.toThrow(/setup script failed \(exit status 1\): fake ran/);
      const calls = invocations(log);
      const run = calls.find((call) => call[0] === "run") ?? [];
      const builder = run[run.indexOf("--name") + 1];
      expect(calls.some((call) => call[0] === "commit")).toBe(false);
      expect(calls.at(-1)).toEqual(["rm", "--force", builder]);
    } finally {
      restore();
    }
  });

  it("takes `sandbox: docker` and the limits from a task's environment", () => {
    expect(
      terminalEnvOptions({
        sandbox: "docker",
        limits: { memory_mb: 8192, address_space_mb: 65536, max_procs: 512 },
      }),
    ).toEqual({ container: "docker", limits: { memoryMb: 8192, addressSpaceMb: 65536, maxProcs: 512 } });
    expect(terminalEnvOptions({ sandbox: "namespaces" })).toEqual({});
  });

  it("runs an episode in a real docker container", async () => {
    dockerDaemon();
    const env = await createTerminalEnv({
      files: { "a.txt": "alpha\n" },
      container: "docker",
      // Each docker exec but the slow one must fit on a loaded machine.
      commandTimeoutMs: 10_000,
    });
    try {
      const first = await env.call(
        "bash",
        {
          command:
            "cat a.txt; id -u; echo made > /srv/x; python3 -m http.server 8767 >/dev/null 2>&1 & echo bg",
        },
        agent(1),
      );
      expect(first.output).toBe(
        `alpha\n${process.geteuid?.() === 0 ? sandboxUserFor(env.workspace).uid : 0}\nbg\n`,
      );
      const slow = await env.call("bash", { command: "sleep 30" }, agent(2));
      expect(slow.output).toMatch(/^Error: timed out after/);
      const net = await env.call(
        "bash",
        { command: "cat /srv/x; tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '" },
        agent(3),
      );
      expect(net.output).toBe("made\nlo\n");
      const fetch =
        "python3 -c \"import urllib.request, time\nfor _ in range(50):\n    try: urllib.request.urlopen('http://127.0.0.1:8767'); break\n    except OSError: time.sleep(0.1)\nelse: raise SystemExit(1)\"";
      const verdict = await runVerifier(env, `${fetch} && echo 1 > /logs/verifier/reward.txt`);
      expect(verdict.reward).toBe(1);
    } finally {
      await env.close();
    }
    const left = execFileSync("docker", ["ps", "--all", "--quiet", "--filter", "name=hsearch-"], {
      encoding: "utf8",
    });
    expect(left.trim()).toBe("");
  }, 120_000);

  it("builds a task's image once with the real daemon: the next episode starts from it", async () => {
    dockerDaemon();
    const marker = `m${Date.now()}`;
    const episode = async (setup: string) => {
      const env = await createTerminalEnv({ files: { "a.txt": "a\n" }, setup, container: "docker" });
      try {
        return (await env.call("bash", { command: "cat /srv/count made.txt" }, agent(1))).output;
      } finally {
        await env.close();
      }
    };
    const setup = `echo ${marker} >> /srv/count && echo made-by-setup > made.txt`;
    const tags = () =>
      execFileSync("docker", ["image", "ls", "--format", "{{.Repository}}:{{.Tag}}", "hsearch-task"], {
        encoding: "utf8",
      })
        .split("\n")
        .filter(Boolean);
    const before = new Set(tags());
    try {
      expect(await episode(setup)).toBe(`${marker}\nmade-by-setup\n`);
      // From the image: the setup did not run again (/srv/count still has one line), the workspace came out of it.
      expect(await episode(setup)).toBe(`${marker}\nmade-by-setup\n`);
      expect(tags().filter((tag) => !before.has(tag))).toHaveLength(1);
      expect(await episode(`${setup} && echo again >> /srv/count`)).toBe(`${marker}\nagain\nmade-by-setup\n`);
      expect(tags().filter((tag) => !before.has(tag))).toHaveLength(2);
    } finally {
      const made = tags().filter((tag) => !before.has(tag));
      if (made.length > 0) execFileSync("docker", ["rmi", "--force", ...made], { stdio: "ignore" });
    }
  }, 180_000);
});
