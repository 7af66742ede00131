import { cpSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { isHsearchError } from "../../src/core/errors";
import { matchRoute, pathSegments, type Route } from "../../src/report/viewer/routes";
import { type StartedViewer, startViewer } from "../../src/report/viewer/server";
import type { EpisodeScore } from "../../src/scoring/episode";
import { openRunStore } from "../../src/store";
import type { RunStatus } from "../../src/store/run-status";
import { runCli } from "../helpers/cli";
import { makeRun } from "./run-fixture";

function get(viewer: StartedViewer, path: string): Promise<{ status: number; body: string }> {
  const cookie = `hsearch_view_${viewer.port}=${viewer.token}`;
  return new Promise((resolve, reject) => {
    const req = request(
      { host: "127.0.0.1", port: viewer.port, path, headers: { cookie }, agent: false },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk) => {
          body += chunk;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on("error", reject);
    req.end();
  });
}

let work: string;
let runDir: string;
let status: RunStatus;

beforeAll(async () => {
  ({ work, runDir, status } = await makeRun());
});

/** A copy of the finished run, made running again with a round-3 proposal that has no rollout yet. */
function runningCopy(): { dir: string; proposal: string; incumbent: string } {
  const dir = join(mkdtempSync(join(tmpdir(), "hsearch-view-model-")), "run");
  cpSync(runDir, dir, { recursive: true });
  const incumbent = (status.selected ?? status.incumbent)?.commit as string;
  const proposal = "ab".repeat(20);
  const store = openRunStore(dir);
  store.setRunState("running");
  store.startRound(3, incumbent);
  store.addCandidate({
    commit: proposal,
    round: 3,
    proposal: 1,
    parent: incumbent,
    branch: "round-3/p1",
    proposer: "operators",
    rationale: "a proposal under evaluation",
    tree_hash: "0".repeat(40),
  });
  store.close();
  return { dir, proposal, incumbent };
}

/** Stores `count` of the incumbent's search episodes again as the proposal's (new keys), as the run would. */
function appendRollouts(dir: string, from: string, to: string, start: number, count: number): void {
  const store = openRunStore(dir);
  const source = store.listRollouts(from, "search").slice(start, start + count);
  store.recordRollouts(
    to,
    source.map((rollout) => ({
      key: `${rollout.key}-p`,
      purpose: "search",
      split: "search",
      scores: rollout.scores as EpisodeScore,
      trajectory: store.readTrajectory(rollout),
    })),
  );
  store.close();
}

/** The banner's "done/total" and the proposal's k/n in the rounds table of one index page. */
function progressOf(page: string, proposal: string): { banner: string | undefined; row: string | undefined } {
  const banner = /r3p1<\/a> under evaluation: <strong class="rollouts-done">(\d+\/\d+)<\/strong>/.exec(
    page,
  )?.[1];
  const rounds = page.split('<table class="rounds">')[1] ?? "";
  const row = rounds.split(`<a href="/candidates/${proposal}">`)[1]?.split("</tr>")[0] ?? "";
  return { banner, row: /<span class="kn">(\d+\/\d+)<\/span>/.exec(row)?.[1] };
}

describe("the viewer's model of a running run", () => {
  it("shows appended rollouts on the next page, reading only the new rows, banner and rounds table from one snapshot", async () => {
    const { dir, proposal, incumbent } = runningCopy();
    const viewer = await startViewer({ runDir: dir, port: 0 });
    try {
      const total = openRunStore(dir, { readonly: true });
      const stored = total.countRollouts();
      const planned = total.listRollouts(incumbent, "search").length;
      total.close();

      const first = await get(viewer, "/");
      expect(first.status).toBe(200);
      expect(progressOf(first.body, proposal).banner).toBe(`0/${planned}`);
      expect(viewer.stats()).toMatchObject({ fullLoads: 1, changes: 1, rolloutsRead: stored });

      // Nothing committed: the same snapshot, nothing read again.
      await get(viewer, "/");
      expect(viewer.stats()).toMatchObject({ fullLoads: 1, changes: 1, rolloutsRead: stored });

      appendRollouts(dir, incumbent, proposal, 0, 5);
      const second = await get(viewer, "/");
      const five = progressOf(second.body, proposal);
      expect(five.banner).toBe(`5/${planned}`);
      // The rounds table's episodes passed are out of the same 5 episodes the banner counts.
      expect(five.row).toMatch(/^\d+\/5$/);
      expect(viewer.stats()).toMatchObject({ fullLoads: 1, changes: 2, rolloutsRead: stored + 5 });

      appendRollouts(dir, incumbent, proposal, 5, 3);
      const third = await get(viewer, "/");
      expect(progressOf(third.body, proposal)).toMatchObject({ banner: `8/${planned}` });
      expect(progressOf(third.body, proposal).row).toMatch(/^\d+\/8$/);
      const candidate = await get(viewer, `/candidates/${proposal}`);
      expect(candidate.body).toContain("search rollouts (8)");
      expect(viewer.stats()).toMatchObject({ fullLoads: 1, changes: 3, rolloutsRead: stored + 8 });

      // The run ends: the pages stop updating themselves.
      const store = openRunStore(dir);
      store.setRunState("finished");
      store.close();
      const last = await get(viewer, "/");
      expect(last.body).not.toContain("data-live");
      expect(viewer.stats()).toMatchObject({ fullLoads: 1, changes: 4, rolloutsRead: stored + 8 });
    } finally {
      await viewer.close();
    }
  });
});

describe("hsearch view of a directory that is not a run", () => {
  it("says so and exits 2 when the directory holds other things; waits only where a run may come", async () => {
    const other = mkdtempSync(join(tmpdir(), "hsearch-not-a-run-"));
    writeFileSync(join(other, "notes.txt"), "not a run\n");
    const error = await startViewer({ runDir: other, port: 0 }).catch((e: unknown) => e);
    expect(isHsearchError(error, "not_found")).toBe(true);
    expect(String((error as Error).message)).toContain("is not a run or evaluation directory");
    const cli = await runCli(["view", other, "--port", "0"], { cwd: work });
    expect(cli.code).toBe(2);
    expect(cli.stderr).toContain(`${other} is not a run or evaluation directory`);
    expect(cli.stderr).toContain(join(other, "run.db"));

    // A directory a run is being created in (what `hsearch run` makes first), an empty one, one to come.
    const starting = mkdtempSync(join(tmpdir(), "hsearch-starting-"));
    mkdirSync(join(starting, "trajectories"));
    const empty = mkdtempSync(join(tmpdir(), "hsearch-empty-"));
    for (const dir of [starting, empty, join(empty, "later")]) {
      const viewer = await startViewer({ runDir: dir, port: 0 });
      try {
        const page = await get(viewer, "/");
        expect(page.status, dir).toBe(200);
        expect(page.body, dir).toContain("Waiting for the run to start");
        expect(viewer.stats()).toBeNull();
      } finally {
        await viewer.close();
      }
    }
  });
});

describe("the viewer's routes", () => {
  it("answers an unknown page with a 404 page that has the navigation", async () => {
    const viewer = await startViewer({ runDir, port: 0 });
    try {
      for (const path of ["/nope", "/candidates/0000000", "/rollouts/search/none", "/candidates/x/y/z/w"]) {
        const page = await get(viewer, path);
        expect(page.status, path).toBe(404);
        expect(page.body, path).toContain("<h1>Not found</h1>");
        expect(page.body, path).toContain('<nav class="top">');
        expect(page.body, path).toContain('<a href="/candidates">candidates</a>');
      }
      // The one name resolver's message: what was asked, and the names that are valid.
      const unknown = (await get(viewer, "/candidates/0000000")).body;
      expect(unknown).toContain("has a commit starting with 0000000");
      expect(unknown).toContain("valid names: seed, incumbent, selected");
    } finally {
      await viewer.close();
    }
  });

  it("matches the first route of the directory's kind whose literal segments and parameters fit", () => {
    const routes: Route<string>[] = [
      { path: "/", kinds: ["search"], render: () => ({ status: 200, body: "home" }) },
      { path: "/compare/:a/:b", kinds: ["search"], render: () => ({ status: 200, body: "compare" }) },
      { path: "/harness/:path", kinds: ["eval"], render: () => ({ status: 200, body: "file" }) },
    ];
    const match = (path: string, kind: "search" | "eval" = "search") => {
      const segments = pathSegments(path);
      return segments === null ? null : matchRoute(routes, kind, segments);
    };
    expect(match("/")?.route.path).toBe("/");
    expect(match("/compare/seed/selected")?.params).toEqual({ a: "seed", b: "selected" });
    expect(match("/compare/seed/")).toBeNull();
    expect(match("/compare/seed/selected/x")).toBeNull();
    expect(match("/harness/system.md")).toBeNull();
    expect(match("/harness/prompts%2Fa.md", "eval")?.params).toEqual({ path: "prompts/a.md" });
    expect(match("/harness/%E0%A4%A", "eval")).toBeNull();
  });
});
