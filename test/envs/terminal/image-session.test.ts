/**
 * The Docker path: a task's own image built from its Dockerfile, and the episode run in it. A fake `docker` on PATH
 * always runs (it answers builds, inspects, `cp` with a tar of a directory, and the supervisor's protocol, and records
 * every command line, which is checked exactly); the real engine runs a Harbor-format fixture end to end where
 * `docker info` answers (test/tasks/harbor/image-spec.test.ts), and says which happened.
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  buildInvocation,
  type DockerfileImage,
  imageRunInvocation,
  imageTag,
  parseImageConfig,
  RUN_LAYER_SCRIPT,
  runLayerContext,
  runLayerTag,
  workspaceMountPoint,
} from "../../../src/envs/terminal/image-plan";
import { supervisorScript } from "../../../src/envs/terminal/session-plan";
import { dockerfileImage, terminalEnvOptions } from "../../../src/envs/terminal/task-options";
import { createTerminalEnv } from "../../../src/envs/terminal/terminal-env";
import { runVerifier } from "../../../src/envs/terminal/verifier";
import { TaskSetupError } from "../../../src/envs/types";

const agent = (step: number) => ({ step, author: "agent" as const });
const temps: string[] = [];
const temp = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  temps.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

const paths = {
  workspace: "/h/ws",
  tmp: "/h/tmp",
  tests: "/h/verifier/tests",
  logs: "/h/verifier/logs",
  control: "/h/control",
};

function image(overrides: Partial<DockerfileImage> = {}): DockerfileImage {
  return {
    dockerfile: "FROM base:1\nWORKDIR /home/user\nCOPY run.sh /usr/local/bin/run\n",
    context: new Map([
      ["run.sh", Buffer.from("#!/bin/sh\necho run\n")],
      ["data/blob.bin", Buffer.from([0, 1, 2, 255])],
    ]),
    executable: ["run.sh"],
    buildNetwork: "default",
    runPackages: { debian: [], python: [] },
    resources: {},
    ...overrides,
  };
}

describe("the Docker path's command lines (pure)", () => {
  it("tags an image by the content of its Dockerfile and context, modes included", () => {
    const tag = imageTag(image());
    expect(tag).toMatch(/^hsearch-harbor:[0-9a-f]{16}$/);
    expect(imageTag(image())).toBe(tag);
    expect(imageTag(image({ dockerfile: "FROM base:2\n" }))).not.toBe(tag);
    expect(imageTag(image({ executable: [] }))).not.toBe(tag);
    const context = new Map(image().context);
    context.set("run.sh", Buffer.from("#!/bin/sh\necho other\n"));
    expect(imageTag(image({ context }))).not.toBe(tag);
    // The run-time packages are a layer of their own, on top of the same base.
    expect(runLayerTag(tag, { debian: [], python: [] })).toBe(tag);
    const layer = runLayerTag(tag, { debian: ["jq"], python: ["pytest"] });
    expect(layer).toMatch(new RegExp(`^${tag}-[0-9a-f]{8}$`));
    expect(runLayerTag(tag, { debian: ["jq"], python: ["pytest"] })).toBe(layer);
    expect(runLayerTag(tag, { debian: ["jq", "file"], python: ["pytest"] })).not.toBe(layer);
  });

  it("builds with the engine's network unless the task says host or none", () => {
    expect(buildInvocation("/usr/bin/docker", { tag: "t:1", contextDir: "/c", network: "default" })).toEqual({
      file: "/usr/bin/docker",
      args: ["build", "--force-rm", "--tag", "t:1", "--file", "/c/Dockerfile", "/c"],
    });
    expect(buildInvocation("docker", { tag: "t:1", contextDir: "/c", network: "host" }).args).toEqual([
      "build",
      "--force-rm",
      "--network",
      "host",
      "--tag",
      "t:1",
      "--file",
      "/c/Dockerfile",
      "/c",
    ]);
  });

  it("installs the run-time packages as root in a layer, then goes back to the image's user", () => {
    const layer = runLayerContext("hsearch-harbor:abc", "app", {
      debian: ["python3-pytest", "jq"],
      python: ["numpy"],
    });
    expect(layer.dockerfile).toBe(
      [
        "FROM hsearch-harbor:abc",
        "USER root",
        `COPY hsearch-run-packages.sh ${RUN_LAYER_SCRIPT}`,
        `RUN sh ${RUN_LAYER_SCRIPT} && rm -f ${RUN_LAYER_SCRIPT}`,
        "USER app",
        "",
      ].join("\n"),
    );
    expect(layer.script).toContain("  for name in jq python3-pytest; do\n");
    expect(layer.script).toContain('"$python" -m pip install --no-cache-dir numpy ||');
    expect(runLayerContext("b", "", { debian: ["jq"], python: [] }).dockerfile).not.toContain("USER app");
    expect(runLayerContext("b", "0:0", { debian: ["jq"], python: [] }).script).not.toContain("pip");
  });

  it("reads the image's WORKDIR and USER; the workspace is bound there, or at /workspace without one", () => {
    const config = parseImageConfig('{"WorkingDir":"/home/user/","User":"app","Env":["PATH=/bin"]}');
    expect(config).toEqual({ workdir: "/home/user", user: "app" });
    expect(workspaceMountPoint(config)).toBe("/home/user");
    const bare = parseImageConfig('{"WorkingDir":"","User":""}');
    expect(bare).toEqual({ workdir: "/", user: "" });
    expect(workspaceMountPoint(bare)).toBe("/workspace");
  });

  it("runs the episode in the image: no network, its cpus and memory, the workspace at its WORKDIR, the supervisor as entrypoint", () => {
    const run = imageRunInvocation({
      binary: "/usr/bin/docker",
      image: "hsearch-harbor:abc-12345678",
      name: "hsearch-0123456789abcdef",
      config: { workdir: "/home/user", user: "" },
      paths,
      readOnlyWorkspace: false,
      resources: { cpus: 1.5, memoryMb: 2048, storageMb: 10240 },
      maxProcs: 256,
      storageLimits: false,
    });
    expect(run.file).toBe("/usr/bin/docker");
    expect(run.args).toEqual([
      "run",
      "-i",
      "--rm",
      "--name",
      "hsearch-0123456789abcdef",
      "--network",
      "none",
      "--cpus",
      "1.5",
      "--memory",
      "2048m",
      "--pids-limit",
      "272",
      "--volume",
      "/h/ws:/home/user",
      "--volume",
      "/h/tmp:/tmp",
      "--volume",
      "/h/verifier/tests:/tests:ro",
      "--volume",
      "/h/verifier/logs:/logs",
      "--volume",
      "/h/control:/.hsearch:ro",
      "--workdir",
      "/home/user",
      "--entrypoint",
      "/bin/bash",
      "hsearch-harbor:abc-12345678",
      "-c",
      `exec 4>&1\n${supervisorScript("/home/user")}`,
      "hsearch-supervisor",
      "timeout",
    ]);
    expect(supervisorScript("/home/user")).toContain("    cd /home/user || exit 125\n");
    const capped = imageRunInvocation({
      binary: "docker",
      image: "i",
      name: "n",
      config: { workdir: "/", user: "" },
      paths,
      readOnlyWorkspace: true,
      resources: { storageMb: 512 },
      maxProcs: 64,
      storageLimits: true,
    }).args;
    expect(capped).toContain("--storage-opt");
    expect(capped[capped.indexOf("--storage-opt") + 1]).toBe("size=512m");
    expect(capped).toContain("/h/ws:/workspace:ro");
    expect(capped.slice(capped.indexOf("--workdir"), capped.indexOf("--workdir") + 2)).toEqual([
      "--workdir",
      "/",
    ]);
  });

  it("takes a task's image from its environment spec: context bytes, defaults", () => {
    const options = terminalEnvOptions({
      sandbox: "docker",
      image: {
        dockerfile: "FROM x\n",
        context: { "a.txt": "text\n" },
        context_binary: { "b.bin": Buffer.from([0, 200]).toString("base64") },
        executable: ["a.txt"],
        resources: { cpus: 2, memory_mb: 4096 },
      },
    });
    expect(options.container).toBe("docker");
    expect(options.image?.context.get("b.bin")).toEqual(Buffer.from([0, 200]));
    expect(options.image?.context.get("a.txt")?.toString()).toBe("text\n");
    expect(options.image).toMatchObject({
      executable: ["a.txt"],
      buildNetwork: "default",
      runPackages: { debian: [], python: [] },
      resources: { cpus: 2, memoryMb: 4096 },
    });
    expect(dockerfileImage({ dockerfile: "FROM x\n", build_network: "host" }).buildNetwork).toBe("host");
  });
});

/**
 * A fake engine: records each invocation (NUL-separated argv, then RS) in $FAKE_DOCKER_LOG, keeps the tags it
 * built in $FAKE_DOCKER_STATE (with a copy of each build context), answers `image inspect` from them, `cp` with a
 * tar of $FAKE_IMAGE_ROOT/<path>, and `run` as the supervisor would (logging each command's limits and argv).
 */
const FAKE_DOCKER = `#!/bin/bash
{ printf '%s\\0' "$@"; printf '\\036'; } >> "$FAKE_DOCKER_LOG"
state="$FAKE_DOCKER_STATE"
case "$1" in
  image)
    tag="\${@: -1}"
    [ -e "$state/\${tag//[:\\/]/_}" ] || exit 1
    if [ "$4" = "{{json .Config}}" ]; then printf '%s\\n' "$FAKE_IMAGE_CONFIG"; else echo sha256:fake; fi ;;
  build)
    tag=""; for ((i = 1; i <= $#; i++)); do [ "\${!i}" = --tag ] && { j=$((i + 1)); tag="\${!j}"; }; done
    context="\${@: -1}"
    echo "fake build output"
    [ "\${FAKE_BUILD_STATUS:-0}" = 0 ] || exit "$FAKE_BUILD_STATUS"
    cp -a "$context" "$state/context-\${tag//[:\\/]/_}"
    touch "$state/\${tag//[:\\/]/_}" ;;
  info) echo "$FAKE_DRIVER" ;;
  cp)
    path="\${2#*:}"; path="\${path%/.}"
    [ -d "$FAKE_IMAGE_ROOT$path" ] || { echo "Error: Could not find the file $path in container" >&2; exit 1; }
    tar -c -C "$FAKE_IMAGE_ROOT$path" . ;;
  create|rm|exec) exit 0 ;;
  run)
    field() { IFS= read -r -d '' "$1"; }
    printf 'ready\\n'
    while field id && field marker && field secs && field cpu && field data && field as && field nproc &&
      field fsize && field input && field merge && field nenv; do
      for ((i = 0; i < nenv; i++)); do field kv; done
      field nargv; argv=()
      for ((i = 0; i < nargv; i++)); do field a; argv+=("$a"); done
      { printf '@request\\0%s\\0%s\\0' "cpu=$cpu data=$data fsize=$fsize" "\${argv[*]}"; printf '\\036'; } >> "$FAKE_DOCKER_LOG"
      printf 'fake ran: %s\\n' "\${argv[*]}"
      printf '%s' "$marker"; printf '%s' "$marker" >&2; printf '%s 0\\n' "$id"
    done ;;
  *) exit 3 ;;
esac
`;

function records(log: string): string[][] {
  return readFileSync(log, "utf8")
    .split("\x1e")
    .filter((record) => record !== "")
    .map((line) => line.split("\0").slice(0, -1));
}

function installFakeDocker(): { log: string; state: string; root: string; restore: () => void } {
  const dir = temp("hsearch-fake-docker-");
  const log = join(dir, "calls.log");
  const state = join(dir, "state");
  const root = join(dir, "image-root");
  mkdirSync(state);
  mkdirSync(join(root, "home", "user", "sub"), { recursive: true });
  mkdirSync(join(root, "tmp"), { mode: 0o1777 });
  writeFileSync(join(root, "home", "user", "notes.txt"), "from the image\n");
  writeFileSync(join(root, "home", "user", "sub", "run.sh"), "#!/bin/sh\n", { mode: 0o750 });
  writeFileSync(join(root, "tmp", "left.txt"), "in the image's /tmp\n");
  writeFileSync(join(dir, "docker"), FAKE_DOCKER);
  chmodSync(join(dir, "docker"), 0o755);
  const names = [
    "PATH",
    "FAKE_DOCKER_LOG",
    "FAKE_DOCKER_STATE",
    "FAKE_IMAGE_ROOT",
    "FAKE_IMAGE_CONFIG",
    "FAKE_DRIVER",
  ];
  const saved = Object.fromEntries(names.map((name) => [name, process.env[name]]));
  Object.assign(process.env, {
    PATH: `${dir}:${process.env.PATH}`,
    FAKE_DOCKER_LOG: log,
    FAKE_DOCKER_STATE: state,
    FAKE_IMAGE_ROOT: root,
    FAKE_IMAGE_CONFIG: '{"WorkingDir":"/home/user","User":""}',
    // No merged root on the host: the episode binds its WORKDIR and /tmp (the real daemon's test keeps them in place).
    FAKE_DRIVER: "vfs",
  });
  const restore = () => {
    for (const name of names) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
    delete process.env.FAKE_BUILD_STATUS;
  };
  return { log, state, root, restore };
}

describe("the Docker path with a fake docker", () => {
  it("builds the Dockerfile and the run-time layer once, copies the WORKDIR and /tmp out, runs the episode, removes it", async () => {
    const fake = installFakeDocker();
    try {
      const spec = image({
        buildNetwork: "host",
        runPackages: { debian: ["jq"], python: [] },
        resources: { cpus: 1, memoryMb: 1024, storageMb: 2048 },
      });
      const env = await createTerminalEnv({ container: "docker", image: spec, setupTimeoutMs: 30_000 });
      const result = await env.call("bash", { command: "echo hi" }, agent(1));
      expect(result.output).toBe("fake ran: /bin/bash -c echo hi\n");
      // The WORKDIR's files with their modes, and the image's /tmp (sticky and open to all).
      expect(readFileSync(join(env.workspace, "notes.txt"), "utf8")).toBe("from the image\n");
      expect(statSync(join(env.workspace, "sub", "run.sh")).mode & 0o777).toBe(0o750);
      expect(readFileSync(join(env.tmp, "left.txt"), "utf8")).toBe("in the image's /tmp\n");
      expect(statSync(env.tmp).mode & 0o7777).toBe(0o1777);
      const { dir: envDir, workspace, tmp } = env;
      await env.close();

      const all = records(fake.log);
      const calls = all.filter((record) => record[0] !== "@request");
      const base = imageTag(spec);
      const tag = runLayerTag(base, spec.runPackages);
      const builds = calls.filter((call) => call[0] === "build");
      expect(calls.map((call) => call.slice(0, 2).join(" "))).toEqual([
        "image inspect",
        "image inspect",
        "build --force-rm",
        "image inspect",
        "build --force-rm",
        "image inspect",
        "info --format",
        "create --name",
        "cp " + calls[8]?.[1],
        "cp " + calls[9]?.[1],
        "rm --force",
        "run -i",
        "rm --force",
      ]);
      expect(calls[0]).toEqual(["image", "inspect", "--format", "{{.Id}}", tag]);
      expect(calls[1]).toEqual(["image", "inspect", "--format", "{{.Id}}", base]);
      const [first, second] = builds.map((call) => call.at(-1) as string);
      expect(builds[0]).toEqual([
        "build",
        "--force-rm",
        "--network",
        "host",
        "--tag",
        base,
        "--file",
        `${first}/Dockerfile`,
        first,
      ]);
      expect(builds[1]).toEqual([
        "build",
        "--force-rm",
        "--network",
        "host",
        "--tag",
        tag,
        "--file",
        `${second}/Dockerfile`,
        second,
      ]);
      expect(calls[3]).toEqual(["image", "inspect", "--format", "{{json .Config}}", base]);
      expect(calls[5]).toEqual(["image", "inspect", "--format", "{{json .Config}}", tag]);
      // The build context: the Dockerfile, the files with their bytes and modes.
      const context = join(fake.state, `context-${base.replace(/[:/]/g, "_")}`);
      expect(readFileSync(join(context, "Dockerfile"), "utf8")).toBe(spec.dockerfile);
      expect(readFileSync(join(context, "data", "blob.bin"))).toEqual(Buffer.from([0, 1, 2, 255]));
      expect(statSync(join(context, "run.sh")).mode & 0o777).toBe(0o755);
      expect(statSync(join(context, "data", "blob.bin")).mode & 0o777).toBe(0o644);
      const layer = join(fake.state, `context-${tag.replace(/[:/]/g, "_")}`);
      expect(readFileSync(join(layer, "Dockerfile"), "utf8")).toBe(
        runLayerContext(base, "", spec.runPackages).dockerfile,
      );
      const name = calls[7]?.[2] ?? "";
      expect(calls[7]).toEqual(["create", "--name", name, "--entrypoint", "/bin/true", tag]);
      expect(calls[8]).toEqual(["cp", `${name}:/home/user/.`, "-"]);
      expect(calls[9]).toEqual(["cp", `${name}:/tmp/.`, "-"]);
      expect(calls[10]).toEqual(["rm", "--force", name]);
      const run = calls[11] ?? [];
      const episode = run[4] ?? "";
      expect(run).toEqual(
        imageRunInvocation({
          binary: "",
          image: tag,
          name: episode,
          config: { workdir: "/home/user", user: "" },
          paths: {
            workspace,
            tmp,
            tests: `${envDir}/verifier/tests`,
            logs: `${envDir}/verifier/logs`,
            control: `${envDir}/control`,
          },
          readOnlyWorkspace: false,
          resources: spec.resources,
          maxProcs: 256,
          storageLimits: false,
        }).args,
      );
      expect(calls[12]).toEqual(["rm", "--force", episode]);
      // Commands run with the task's own per-command limits only: none here, so the container bounds them.
      expect(all.filter((record) => record[0] === "@request").map((record) => record[1])).toEqual([
        "cpu=unlimited data=unlimited fsize=unlimited",
      ]);

      // The next episode of the same image builds nothing.
      writeFileSync(fake.log, "");
      const again = await createTerminalEnv({ container: "docker", image: spec });
      await again.close();
      // It only asks the engine whether the image is still there.
      const [asked, ...next] = records(fake.log);
      expect(asked).toEqual(["image", "inspect", "--format", "{{.Id}}", tag]);
      expect(next.map((call) => call[0])).toEqual(["create", "cp", "cp", "rm", "run", "rm"]);

      // An image removed behind the process's back (docker rmi, a prune) is built again, not run missing.
      rmSync(join(fake.state, tag.replace(/[:/]/g, "_")));
      writeFileSync(fake.log, "");
      const rebuilt = await createTerminalEnv({ container: "docker", image: spec });
      await rebuilt.close();
      const after = records(fake.log);
      expect(after.filter((call) => call[0] === "build")).toHaveLength(1);
      expect(after.at(-2)?.[0]).toBe("run");
    } finally {
      fake.restore();
    }
  });

  it("a Dockerfile that does not build is the task's setup error, with the end of the build's output", async () => {
    const fake = installFakeDocker();
    process.env.FAKE_BUILD_STATUS = "1";
    try {
      const made = createTerminalEnv({ container: "docker", image: image({ dockerfile: "FROM broken\n" }) });
      await expect(made).rejects.toSatisfy((error) => error instanceof TaskSetupError);
      await expect(made).rejects.toThrow(
        /docker build of the task's Dockerfile failed \(exit status 1\): fake build output/,
      );
      expect(records(fake.log).some((call) => call[0] === "run")).toBe(false);
    } finally {
      fake.restore();
    }
  });

  it("the verifier runs in the image's WORKDIR with /tests and /logs; an image without /tmp is fine; a task image needs a container engine", async () => {
    const fake = installFakeDocker();
    rmSync(join(fake.root, "tmp"), { recursive: true });
    try {
      const env = await createTerminalEnv({
        container: "docker",
        image: image({ dockerfile: "FROM base:1\nWORKDIR /home/user\n# verifier\n" }),
      });
      try {
        const verdict = await runVerifier(env, "echo 1 > /logs/verifier/reward.txt");
        // The fake ran it without writing a reward: what matters is what was sent.
        expect(verdict.output).toBe("fake ran: /bin/bash /tests/test.sh\n");
        expect(readFileSync(join(env.session.paths.tests, "test.sh"), "utf8")).toBe(
          "echo 1 > /logs/verifier/reward.txt",
        );
      } finally {
        await env.close();
      }
    } finally {
      fake.restore();
    }
    await expect(createTerminalEnv({ image: image() })).rejects.toThrow(
      /a task image runs in a container: choose docker or podman/,
    );
  });
});
