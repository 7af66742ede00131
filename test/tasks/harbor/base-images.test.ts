/**
 * FROM images of a benchmark's own registry on the offline Docker path: mapped to local base images by the user's
 * table, then the defaults; the namespace path ignores FROM (dataset-shapes.test.ts runs such tasks there).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../../src/core/paths";
import type { TerminalEnvSpec } from "../../../src/domain/task";
import {
  isRegistryImage,
  mapBaseImage,
  mapDockerfileBases,
  readImageMap,
} from "../../../src/tasks/importers/harbor/base-images";
import { loadTaskDir } from "../../../src/tasks/loading/load";
import { runCli } from "../../helpers/cli";

const FIXTURES = join(PACKAGE_ROOT, "test", "fixtures", "harbor-dataset");
const temps: string[] = [];
function temp(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  temps.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

describe("base images of a benchmark's registry", () => {
  it("maps by the user's rules first, then the defaults for registry images only", () => {
    expect(isRegistryImage("registry.example.com/bench/ubuntu-24-04:1")).toBe(true);
    expect(isRegistryImage("localhost/x")).toBe(true);
    expect(isRegistryImage("alexgshaw/tool:1")).toBe(false);
    expect(isRegistryImage("ubuntu:24.04")).toBe(false);
    expect(mapBaseImage("registry.example.com/bench/ubuntu-24-04:1", [])).toBe("ubuntu:24.04");
    expect(mapBaseImage("registry.example.com/bench/python-3-13:1", [])).toBe("python:3.13-slim-bookworm");
    expect(mapBaseImage("registry.example.com/bench/alpine:1", [])).toBeUndefined();
    expect(mapBaseImage("ubuntu:24.04", [])).toBeUndefined();
    const own = [{ pattern: "registry.example.com/bench/*", image: "debian:bookworm-slim" }];
    expect(mapBaseImage("registry.example.com/bench/python-3-13:1", own)).toBe("debian:bookworm-slim");
    expect(mapBaseImage("alexgshaw/tool:1", [{ pattern: "alexgshaw/*", image: "ubuntu:24.04" }])).toBe(
      "ubuntu:24.04",
    );
  });

  it("rewrites FROM lines, keeping stage names and flags, and leaves a stage built from an earlier one alone", () => {
    const text = [
      "FROM --platform=linux/amd64 registry.example.com/b/python-base:3 AS build",
      "RUN true",
      "FROM build",
      "FROM registry.example.com/b/ubuntu-24-04:2",
    ].join("\n");
    const { dockerfile, mapped } = mapDockerfileBases(text, []);
    expect(dockerfile.split("\n")).toEqual([
      "FROM --platform=linux/amd64 python:3.13-slim-bookworm AS build",
      "RUN true",
      "FROM build",
      "FROM ubuntu:24.04",
    ]);
    expect(mapped.map((entry) => entry.line)).toEqual([1, 4]);
  });

  it("reads the user's table, naming the file and line of a bad entry", () => {
    const dir = temp("hsearch-image-map-");
    const good = join(dir, "map.yaml");
    writeFileSync(good, '"registry.example.com/bench/*": ubuntu:24.04\n');
    expect(readImageMap(good)).toEqual([{ pattern: "registry.example.com/bench/*", image: "ubuntu:24.04" }]);
    const bad = join(dir, "bad.yaml");
    writeFileSync(bad, "ok/*: ubuntu:24.04\nBad Name: ubuntu:24.04\n");
    expect(() => readImageMap(bad)).toThrow(/'Bad Name' is not an image name or pattern/);
    try {
      readImageMap(bad);
    } catch (error) {
      expect((error as { describe(): string }).describe()).toContain(`${bad}:2`);
    }
  });

  it("import-harbor --sandbox docker --image-map maps the fixtures' registry bases; without it FROM stays", async () => {
    const dir = temp("hsearch-image-map-cli-");
    const map = join(dir, "map.yaml");
    writeFileSync(map, '"registry.example.com/bench/python-base:*": python:3.12-slim-bookworm\n');
    const froms = async (extra: string[]) => {
      const out = join(temp("hsearch-image-map-out-"), "tasks");
      const result = await runCli([
        "tasks",
        "import-harbor",
        FIXTURES,
        "--out",
        out,
        "--sandbox",
        "docker",
        ...extra,
      ]);
      expect(result.code, result.stderr).toBe(0);
      return Object.fromEntries(
        loadTaskDir(out).map(({ task }) => [
          task.id,
          /^FROM\s+(\S+)/m.exec((task.env as TerminalEnvSpec).image?.dockerfile ?? "")?.[1],
        ]),
      );
    };
    expect(await froms(["--image-map", map])).toEqual({
      "harbor-word-count": "python:3.12-slim-bookworm",
      "harbor-home-notes": "ubuntu:24.04",
      "harbor-project-root": "python:3.13-slim-bookworm",
    });
    expect((await froms([]))["harbor-home-notes"]).toBe("registry.example.com/bench/ubuntu-24-04:20250601");
    const missing = await runCli([
      "tasks",
      "import-harbor",
      FIXTURES,
      "--sandbox",
      "docker",
      "--image-map",
      join(dir, "none.yaml"),
    ]);
    expect(missing.code).toBe(2);
  });
});
