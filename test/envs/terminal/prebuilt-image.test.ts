/**
 * A task that names a prebuilt image (Harbor's `[environment].docker_image`) runs in it when the engine can pull
 * it and builds its Dockerfile when it cannot, unless the image source forces one; the episode says which. The
 * registry is Debian's docker-registry on 127.0.0.1 (test/helpers/local-registry.ts), the images are made from the
 * offline fixture base, so both branches run for real. Also: the workspace and /tmp are one file system in the
 * container, as in Harbor's (a rename from /app to /tmp works).
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { evaluateRequest } from "../../../src/api";
import { PACKAGE_ROOT } from "../../../src/core/paths";
import type { Task, TerminalEnvSpec } from "../../../src/domain/task";
import {
  type DockerfileImage,
  type ImageSource,
  imageTag,
  prebuiltTag,
  runLayerTag,
} from "../../../src/envs/terminal/image-plan";
import { imageSourceChosen } from "../../../src/envs/terminal/image-source";
import { dockerfileImage } from "../../../src/envs/terminal/task-options";
import { createTerminalEnv } from "../../../src/envs/terminal/terminal-env";
import { TaskSetupError } from "../../../src/envs/types";
import { convertTaskDir } from "../../../src/tasks/importers/harbor/import-harbor";
import { runCli } from "../../helpers/cli";
import { ensureFixtureBaseImage, FIXTURE_BASE_IMAGE } from "../../helpers/debian-fixture-image";
import { dockerDaemon } from "../../helpers/docker-daemon";
import { startRegistry, type TestRegistry } from "../../helpers/local-registry";

let registry: TestRegistry;
let pullable: string;

const docker = (args: string[], input?: string) =>
  execFileSync("docker", args, {
    encoding: "utf8",
    stdio: ["pipe", "pipe", "pipe"],
    input,
    timeout: 240_000,
  });

/** A Dockerfile whose image says it was built from it; the prebuilt image says "prebuilt" in the same place. */
function taskImage(prebuilt: string): DockerfileImage {
  return {
    dockerfile: `FROM ${FIXTURE_BASE_IMAGE}\nRUN echo dockerfile > /etc/hsearch-origin\nWORKDIR /app\nRUN echo data > /app/input.txt\n`,
    prebuilt,
    context: new Map(),
    executable: [],
    buildNetwork: "none",
    runPackages: { debian: [], python: [] },
    resources: {},
  };
}

async function origin(prebuilt: string, imageSource: ImageSource) {
  const env = await createTerminalEnv({ container: "docker", image: taskImage(prebuilt), imageSource });
  try {
    const look = await env.call(
      "bash",
      { command: "cat /etc/hsearch-origin input.txt" },
      { step: 1, author: "agent" },
    );
    return { output: look.output, image: env.episodeImage() };
  } finally {
    await env.close();
  }
}

beforeAll(async () => {
  dockerDaemon();
  ensureFixtureBaseImage();
  registry = await startRegistry();
  pullable = `${registry.host}/hsearch-test/origin:1`;
  const context = mkdtempSync(join(tmpdir(), "hsearch-prebuilt-"));
  try {
    writeFileSync(
      join(context, "Dockerfile"),
      `FROM ${FIXTURE_BASE_IMAGE}\nRUN echo prebuilt > /etc/hsearch-origin\nWORKDIR /app\nRUN echo data > /app/input.txt\n`,
    );
    docker(["build", "--network", "none", "--tag", pullable, context]);
    docker(["push", pullable]);
    // Only the registry has it now: the episode must pull it.
    docker(["rmi", pullable]);
  } finally {
    rmSync(context, { recursive: true, force: true });
  }
}, 300_000);

afterAll(async () => {
  // Only this file's images: other files build theirs at the same time.
  docker(["rmi", "--force", imageTag(taskImage(pullable)), prebuiltTag(pullable)]);
  await registry?.stop();
});

describe("a task's prebuilt image", () => {
  it("auto: runs the prebuilt image when the engine can pull it, and records it", async () => {
    const ran = await origin(pullable, "auto");
    expect(ran.output).toBe("prebuilt\ndata\n");
    expect(ran.image).toEqual({ source: "prebuilt", reference: pullable });
  }, 240_000);

  it("auto: builds the Dockerfile when the image cannot be pulled, and records why", async () => {
    const absent = `${registry.host}/hsearch-test/absent:1`;
    const ran = await origin(absent, "auto");
    expect(ran.output).toBe("dockerfile\ndata\n");
    expect(ran.image?.source).toBe("dockerfile");
    expect(ran.image?.reference).toMatch(/^hsearch-harbor:[0-9a-f]{16}$/);
    expect(ran.image?.prebuilt).toBe(absent);
    expect(ran.image?.pull_error).toMatch(/not found|manifest unknown/i);
  }, 240_000);

  it("dockerfile: builds the Dockerfile although the prebuilt image could be pulled", async () => {
    const ran = await origin(pullable, "dockerfile");
    expect(ran.output).toBe("dockerfile\ndata\n");
    expect(ran.image?.source).toBe("dockerfile");
    expect(ran.image?.pull_error).toBeUndefined();
  }, 240_000);

  it("prebuilt: an image that cannot be pulled is the task's setup error naming it", async () => {
    const absent = `${registry.host}/hsearch-test/absent:2`;
    const failed = await origin(absent, "prebuilt").then(
      () => null,
      (error: unknown) => error,
    );
    expect(failed).toBeInstanceOf(TaskSetupError);
    expect(String(failed)).toContain(`cannot pull the task's prebuilt image ${absent}`);
  }, 240_000);

  it("HSEARCH_IMAGE_SOURCE chooses, and a bad value names the variable", () => {
    expect(imageSourceChosen({})).toBe("auto");
    expect(imageSourceChosen({ HSEARCH_IMAGE_SOURCE: "dockerfile" })).toBe("dockerfile");
    expect(() => imageSourceChosen({ HSEARCH_IMAGE_SOURCE: "pull" })).toThrow(
      /HSEARCH_IMAGE_SOURCE must be one of auto, prebuilt, dockerfile, got 'pull'/,
    );
  });
});

describe("the task image's file system", () => {
  it("renames from the workspace to /tmp as in Harbor's container (no EXDEV), and the host sees both", async () => {
    const env = await createTerminalEnv({
      container: "docker",
      image: taskImage(`${registry.host}/hsearch-test/absent:3`),
      imageSource: "dockerfile",
    });
    try {
      // rename(2) itself, as Python's os.rename: mv would fall back to copying.
      const moved = await env.call(
        "bash",
        {
          command:
            'perl -e \'rename("input.txt", "/tmp/input.txt") or die "rename: $!\\n"\' && cat /tmp/input.txt && ls',
        },
        { step: 1, author: "agent" },
      );
      expect(moved.output).toBe("data\n");
      expect(moved.ok).toBe(true);
      expect(env.effects().at(-1)?.files?.deleted).toEqual(["input.txt"]);
      const back = await env.call(
        "bash",
        { command: 'perl -e \'rename("/tmp/input.txt", "/app/again.txt") or die "rename: $!\\n"\'' },
        { step: 2, author: "agent" },
      );
      expect(back.ok, back.output).toBe(true);
      expect(env.effects().at(-1)?.files?.created).toEqual(["again.txt"]);
      // /tmp and the workspace keep the image's modes once the episode's files are copied in: any user may
      // mktemp in /tmp, as in the image.
      const modes = await env.call(
        "bash",
        { command: "stat -c '%a %U' /tmp /app" },
        { step: 3, author: "agent" },
      );
      expect(modes.output).toBe(
        docker([
          "run",
          "--rm",
          "--entrypoint",
          "stat",
          imageTag(taskImage(`${registry.host}/hsearch-test/absent:3`)),
          "-c",
          "%a %U",
          "/tmp",
          "/app",
        ]),
      );
      expect(modes.output.split("\n")[0]).toBe("1777 root");
    } finally {
      await env.close();
    }
  }, 240_000);
});

describe("eval --image-source", () => {
  it("records with each episode which image it ran in, as the flag chose", async () => {
    const task = wordsHome(pullable);
    const env = task.env as TerminalEnvSpec;
    const dir = mkdtempSync(join(tmpdir(), "hsearch-prebuilt-eval-"));
    try {
      writeFileSync(join(dir, `${task.id}.json`), JSON.stringify(task));
      const images = async (source: ImageSource) => {
        const out = join(dir, `out-${source}`);
        const ran = await runCli([
          "eval",
          "--harness",
          join(PACKAGE_ROOT, "harnesses", "abandon"),
          "--tasks",
          join(dir, `${task.id}.json`),
          "--model",
          "oracle",
          "--image-source",
          source,
          "--out",
          out,
          "--json",
        ]);
        expect(ran.code, ran.stderr).toBe(0);
        return trajectories(out).map((trajectory) => trajectory.image);
      };
      expect(await images("prebuilt")).toEqual([{ source: "prebuilt", reference: pullable }]);
      const built = await images("dockerfile");
      expect(built).toHaveLength(1);
      expect(built[0]?.source).toBe("dockerfile");
      expect(built[0]?.prebuilt).toBe(pullable);
      const bad = await runCli(["eval", "--tasks", dir, "--harness", "x", "--image-source", "pull"]);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain("image-source");
    } finally {
      rmSync(dir, { recursive: true, force: true });
      removeTaskImages(env, pullable);
    }
  }, 300_000);
});

describe("two evaluations in one process", () => {
  it("each runs its episodes from its own image source, at the same time", async () => {
    const task = wordsHome(pullable);
    const env = task.env as TerminalEnvSpec;
    // Its own image tags: this process remembers the images the test above made, which that test removed.
    if (env.image) env.image.dockerfile += "\nLABEL hsearch.test=two-evaluations\n";
    const dir = mkdtempSync(join(tmpdir(), "hsearch-prebuilt-two-"));
    const saved = process.env.HSEARCH_IMAGE_SOURCE;
    // The user's default says one thing; each request says its own, and neither sees the other's.
    process.env.HSEARCH_IMAGE_SOURCE = "dockerfile";
    try {
      writeFileSync(join(dir, `${task.id}.json`), JSON.stringify(task));
      const evaluate = (imageSource: ImageSource | undefined, name: string) =>
        evaluateRequest(
          {
            harness: join(PACKAGE_ROOT, "harnesses", "abandon"),
            tasks: join(dir, `${task.id}.json`),
            model: "oracle",
            seed: 1,
            repeats: 2,
            concurrency: 2,
            out: join(dir, name),
            ...(imageSource ? { imageSource } : {}),
          },
          { cwd: dir, env: process.env },
        );
      const [prebuilt, built, fallback] = await Promise.all([
        evaluate("prebuilt", "prebuilt"),
        evaluate("dockerfile", "dockerfile"),
        evaluate(undefined, "default"),
      ]);
      for (const outcome of [prebuilt, built, fallback]) expect(outcome.infraGate).toBeNull();
      expect(trajectories(prebuilt.dir).map((t) => t.image)).toEqual([
        { source: "prebuilt", reference: pullable },
        { source: "prebuilt", reference: pullable },
      ]);
      for (const outcome of [built, fallback]) {
        const images = trajectories(outcome.dir).map((t) => t.image);
        expect(images).toHaveLength(2);
        for (const image of images) expect(image).toMatchObject({ source: "dockerfile", prebuilt: pullable });
      }
      // Nothing was left set for the rest of the process.
      expect(process.env.HSEARCH_IMAGE_SOURCE).toBe("dockerfile");
    } finally {
      if (saved === undefined) delete process.env.HSEARCH_IMAGE_SOURCE;
      else process.env.HSEARCH_IMAGE_SOURCE = saved;
      rmSync(dir, { recursive: true, force: true });
      removeTaskImages(env, pullable);
    }
  }, 300_000);
});

/** The words-home Harbor fixture as a task, naming `prebuilt` as its prebuilt image. */
function wordsHome(prebuilt: string): Task {
  const converted = convertTaskDir(
    join(PACKAGE_ROOT, "test", "fixtures", "harbor-docker", "words-home"),
    "search",
    { sandbox: "docker", buildNetwork: "none" },
  );
  if (!converted.ok) throw new Error(converted.reason);
  const env = converted.task.env as TerminalEnvSpec;
  if (!env.image) throw new Error("the fixture has no image");
  env.image.prebuilt = prebuilt;
  return converted.task;
}

/** The images an evaluation of the task made: its Dockerfile's, and the run-time layers on it and on the prebuilt one. */
function removeTaskImages(env: TerminalEnvSpec, pullable: string): void {
  if (!env.image) return;
  const image = dockerfileImage(env.image);
  const base = imageTag(image);
  docker(["rmi", "--force", base, runLayerTag(base, image.runPackages)]);
  docker(["rmi", "--force", runLayerTag(prebuiltTag(pullable), image.runPackages)]);
}

/** Every stored trajectory of an evaluation directory (its trajectories/*.jsonl lines). */
function trajectories(
  out: string,
): Array<{ image?: { source: string; reference: string; prebuilt?: string } }> {
  const dir = join(out, "trajectories");
  return readdirSync(dir)
    .filter((name) => name.endsWith(".jsonl"))
    .flatMap((name) => readFileSync(join(dir, name), "utf8").split("\n").filter(Boolean))
    .map((line) => JSON.parse(line))
    .map((record) => record.trajectory ?? record);
}
