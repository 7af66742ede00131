import { type ChildProcess, execFileSync, spawn, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { shellQuote } from "../../src/core/shell-quote";
import { isLoopbackHost, sameToken } from "../../src/report/viewer/access";
import { type StartedViewer, startViewer } from "../../src/report/viewer/server";
import { openRunStore } from "../../src/store";
import type { RunStatus } from "../../src/store/run-status";
import { runCli } from "../helpers/cli";
import { compiledCli } from "../helpers/compiled-package";
import { makeRun } from "./run-fixture";

/** The compiled CLI (test/helpers/compiled-package.ts), which this file starts as a child process. */
let cli: string[];
beforeAll(async () => {
  cli = await compiledCli();
}, 300_000);

interface Response {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A raw GET (no URL normalisation, so traversal attempts reach the server as written). */
function get(
  port: number,
  path: string,
  headers: Record<string, string> = {},
  method = "GET",
): Promise<Response> {
  return new Promise((resolve, reject) => {
    // A fresh connection per request: a kept-alive one may be closed by the server while a test blocks (spawnSync).
    const req = request({ host: "127.0.0.1", port, path, method, headers, agent: false }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk) => {
        body += chunk;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

let work: string;
let runDir: string;
let status: RunStatus;
let viewer: StartedViewer;
let cookie: string;

beforeAll(async () => {
  ({ work, runDir, status } = await makeRun());
  viewer = await startViewer({ runDir, port: 0 });
});

afterAll(async () => {
  await viewer?.close();
});

describe("the viewer's access control", () => {
  it("binds to 127.0.0.1 on a free port and prints a URL with a random token", () => {
    expect(viewer.host).toBe("127.0.0.1");
    expect(viewer.port).toBeGreaterThan(0);
    expect(viewer.url).toBe(`http://127.0.0.1:${viewer.port}/?token=${viewer.token}`);
    expect(viewer.token).toMatch(/^[A-Za-z0-9_-]{32}$/);
  });

  it("answers 403 without the token, or with a wrong one", async () => {
    for (const path of ["/", "/candidates", `/candidates/${status.rounds[0]?.proposals[0]?.commit}`]) {
      const response = await get(viewer.port, path);
      expect(response.status).toBe(403);
      expect(response.body).not.toContain("<html");
    }
    expect((await get(viewer.port, `/?token=${viewer.token.slice(0, -1)}x`)).status).toBe(403);
    expect((await get(viewer.port, "/", { cookie: `hsearch_view_${viewer.port}=wrong` })).status).toBe(403);
  });

  it("takes the token once in the query string, then from the cookie it sets", async () => {
    const first = await get(viewer.port, `/?token=${viewer.token}`);
    expect(first.status).toBe(200);
    const setCookie = String(first.headers["set-cookie"]);
    expect(setCookie).toContain(`hsearch_view_${viewer.port}=${viewer.token}`);
    expect(setCookie).toContain("HttpOnly");
    expect(setCookie).toContain("SameSite=Strict");
    cookie = setCookie.split(";")[0] as string;
    const again = await get(viewer.port, "/", { cookie });
    expect(again.status).toBe(200);
    expect(again.headers["set-cookie"]).toBeUndefined();
    expect(again.headers["content-security-policy"]).toContain("default-src 'none'");
  });

  it("compares tokens in constant time over hashes (any length) and knows loopback hosts", () => {
    expect(sameToken("abc", "abc")).toBe(true);
    expect(sameToken("abc", "abd")).toBe(false);
    expect(sameToken("", "abc")).toBe(false);
    expect(["127.0.0.1", "127.1.2.3", "::1", "localhost"].every(isLoopbackHost)).toBe(true);
    expect(["0.0.0.0", "192.168.1.4", "::", "example.com"].some(isLoopbackHost)).toBe(false);
  });

  it("refuses to bind a non-loopback host unless remote access is explicitly allowed", async () => {
    await expect(startViewer({ runDir, host: "0.0.0.0" })).rejects.toThrow(/--allow-remote/);
    const result = await runCli(["view", runDir, "--host", "0.0.0.0"], { cwd: work });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("refusing to serve on 0.0.0.0");
    const remote = await startViewer({ runDir, host: "0.0.0.0", allowRemote: true });
    try {
      expect((await get(remote.port, "/")).status).toBe(403);
    } finally {
      await remote.close();
    }
  });
});

describe("the viewer's pages", () => {
  it("serves the report, rendered live from the run database, with links", async () => {
    const page = await get(viewer.port, "/", { cookie });
    expect(page.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(page.body).toContain('<table class="rounds">');
    expect(page.body).toContain("<svg");
    const seed = status.rounds[0]?.proposals[0]?.commit as string;
    expect(page.body).toContain(`<a href="/candidates/${seed}">`);
    expect(page.body).toMatch(/<a href="\/rollouts\/heldout\/[^"]+">full trajectory<\/a>/);
    expect(page.body).not.toContain('http-equiv="refresh"');

    // The page follows the database: a proposal failure recorded now shows on the next request.
    const store = openRunStore(runDir);
    store.recordProposalFailure({
      round: 2,
      proposal: 7,
      proposer: "llm",
      rationale: "late <entry>",
      reason: "invalid",
    });
    store.close();
    const later = await get(viewer.port, "/", { cookie });
    expect(later.body).toContain("late &lt;entry&gt;");
  });

  it("lists the candidates with links, and shows one candidate's diff and rollouts", async () => {
    const list = await get(viewer.port, "/candidates", { cookie });
    expect(list.status).toBe(200);
    const commits = status.rounds.flatMap((r) => r.proposals.map((p) => p.commit));
    for (const commit of commits) expect(list.body).toContain(`<a href="/candidates/${commit}">`);

    const accepted = status.rounds.find((r) => r.round > 0 && r.accepted !== null)?.accepted as string;
    const page = await get(viewer.port, `/candidates/${accepted.slice(0, 12)}`, { cookie });
    expect(page.status).toBe(200);
    expect(page.body).toContain("Diff against the parent");
    expect(page.body).toContain('<span class="d-add">');
    expect(page.body).toMatch(/search rollouts \(\d+\)/);
    const link = /<a href="(\/rollouts\/search\/[^"]+)">/.exec(page.body)?.[1];
    expect(link).toBeDefined();

    const trajectory = await get(viewer.port, link as string, { cookie });
    expect(trajectory.status).toBe(200);
    expect(trajectory.body).toContain('<ol class="timeline">');
    expect(trajectory.body).toContain('<span class="who agent">agent</span>');
  });

  it("gives each candidate an export command that works from any directory, the run directory quoted", async () => {
    const accepted = status.rounds.find((r) => r.round > 0 && r.accepted !== null)?.accepted as string;
    // A run made with --out outside ./runs, in a directory whose name needs quoting.
    const copy = join(work, "elsewhere", "it's a run");
    mkdirSync(dirname(copy), { recursive: true });
    cpSync(runDir, copy, { recursive: true });
    const other = await startViewer({ runDir: copy, port: 0 });
    try {
      const cookie = `hsearch_view_${other.port}=${other.token}`;
      for (const path of [`/candidates/${accepted}`, `/candidates/${accepted}/files`]) {
        const page = await get(other.port, path, { cookie });
        const code = /<code>(hsearch export [^<]+)<\/code>/.exec(page.body)?.[1] ?? "";
        const command = code.replaceAll("&#39;", "'").replaceAll("&quot;", '"').replaceAll("&amp;", "&");
        expect(command).toBe(
          `hsearch export '${copy.replace("'", "'\\''")}' --candidate ${accepted.slice(0, 10)} --out DIR`,
        );
        // Run as printed, from an unrelated directory: bash reads the words as a user's shell would, and the CLI
        // runs in-process on them (a child costs some 2 s CPU to start; the bin has its own test).
        const out = mkdtempSync(join(tmpdir(), "hsearch-export-anywhere-"));
        const runnable = command
          .replace(/^hsearch /, "printf '%s\\0' ")
          .replace(/ DIR$/, ` ${shellQuote(join(out, "h"))}`);
        const words = spawnSync("bash", ["-c", runnable], { cwd: tmpdir(), encoding: "utf8" });
        expect(words.status, words.stderr).toBe(0);
        const result = await runCli(words.stdout.split("\0").slice(0, -1), { cwd: tmpdir() });
        expect(result.code, result.stderr).toBe(0);
        const tracked = execFileSync(
          "git",
          ["-C", join(copy, "harness"), "ls-tree", "-r", "--name-only", accepted],
          {
            encoding: "utf8",
          },
        )
          .split("\n")
          .filter(Boolean);
        expect(tracked.length).toBeGreaterThan(0);
        for (const file of tracked) expect(existsSync(join(out, "h", file)), file).toBe(true);
      }
    } finally {
      await other.close();
    }
  }, 300_000);

  it("browses a candidate's files (404 before), shows the export command, the system prompt and the parent comparison", async () => {
    const accepted = status.rounds.find((r) => r.round > 0 && r.accepted !== null)?.accepted as string;
    const files = await get(viewer.port, `/candidates/${accepted}/files`, { cookie });
    expect(files.status).toBe(200);
    const link = /<a class="mono" href="(\/candidates\/[0-9a-f]+\/files\/[^"]+)">([^<]+)<\/a>/.exec(
      files.body,
    );
    expect(link).not.toBeNull();
    const file = await get(viewer.port, link?.[1] as string, { cookie });
    expect(file.status).toBe(200);
    expect(file.body).toContain('<pre class="file">');
    expect((await get(viewer.port, `/candidates/${accepted}/files/..%2Frun.db`, { cookie })).status).toBe(
      404,
    );

    const page = await get(viewer.port, `/candidates/${accepted}`, { cookie });
    expect(page.body).toContain(`hsearch export ${runDir} --candidate ${accepted.slice(0, 10)} --out DIR`);
    expect(page.body).toContain("Against the parent");
    // Its results per split: every per-episode rate with k/n and a 95% interval (strict SA, M0, solve, false abst.).
    const results = page.body.split("<h2>Results</h2>")[1]?.split("</table>")[0] ?? "";
    const searchRow = results.split("<tr>").find((row) => row.startsWith("<td>search</td>")) ?? "";
    expect(searchRow.match(/<span class="kn">\d+\/\d+<\/span> <span class="ci">\[/g)).toHaveLength(4);
    const selected = await get(viewer.port, `/candidates/${status.selected?.commit}`, { cookie });
    const selectedResults = selected.body.split("<h2>Results</h2>")[1]?.split("</table>")[0] ?? "";
    const heldoutRow = selectedResults.split("<tr>").find((row) => row.startsWith("<td>held-out<")) ?? "";
    expect(heldoutRow.match(/<span class="kn">\d+\/\d+<\/span>/g)?.length ?? 0).toBeGreaterThan(0);
    expect(page.body).toMatch(/<span class="kn">\d+\/\d+<\/span>/);
    expect(page.body).toContain("retail system prompt");
    expect(page.body).toMatch(/badge (selected|incumbent)|badge accepted/);
  });

  it("compares any two candidates and shows a flipped episode side by side", async () => {
    const seed = status.rounds[0]?.proposals[0]?.commit as string;
    const final = (status.selected ?? status.incumbent)?.commit as string;
    const compare = await get(viewer.port, `/compare/${seed.slice(0, 8)}/${final.slice(0, 8)}`, { cookie });
    expect(compare.status).toBe(200);
    expect(compare.body).toContain("Compare seed →");
    expect(compare.body).toContain(
      `hsearch diff ${status.run} --from ${seed.slice(0, 10)} --to ${final.slice(0, 10)}`,
    );
    expect(compare.body).toContain("McNemar");
    const side = /<a href="(\/side-by-side\/[^"]+)">side by side<\/a>/.exec(compare.body)?.[1];
    expect(side).toBeDefined();
    const both = await get(viewer.port, side as string, { cookie });
    expect(both.status).toBe(200);
    expect(both.body.match(/<ol class="timeline">/g)?.length).toBeGreaterThanOrEqual(2);
    expect((await get(viewer.port, `/compare/${seed}/0000000`, { cookie })).status).toBe(404);
  });

  it("puts each example next to the seed's episode of the same task", async () => {
    const front = await get(viewer.port, "/", { cookie });
    const link = /<a class="with-seed" href="([^"]+)">side by side with the seed<\/a>/.exec(front.body)?.[1];
    expect(link).toBeDefined();
    const both = await get(viewer.port, (link as string).replaceAll("&amp;", "&"), { cookie });
    expect(both.status).toBe(200);
    expect(both.body).toContain("<h2>seed · ");
    expect(both.body.match(/<ol class="timeline">/g)?.length).toBe(2);
  });

  it("serves its one script to viewer pages; the report file itself carries none", async () => {
    const script = await get(viewer.port, "/assets/viewer.js", { cookie });
    expect(script.status).toBe(200);
    expect(script.headers["content-type"]).toBe("text/javascript; charset=utf-8");
    const front = await get(viewer.port, "/", { cookie });
    expect(front.body).toContain('<script src="/assets/viewer.js" defer></script>');
    const report = await runCli(["report", runDir, "--out", join(work, "r.html")], { cwd: work });
    expect(report.code).toBe(0);
    const { readFileSync } = await import("node:fs");
    expect(readFileSync(join(work, "r.html"), "utf8")).not.toMatch(/<script/i);
  });

  it("answers 404 for anything that is not a page, including path traversal attempts", async () => {
    const attempts = [
      "/../run.db",
      "/../../../../etc/passwd",
      "/%2e%2e/%2e%2e/etc/passwd",
      "/run.db",
      "/harness/system.md",
      "/candidates/0000000/files",
      "/side-by-side/search/..%2Frun.db/x",
      "/trajectories",
      "/candidates/..%2F..%2Frun.db",
      "/candidates/../../run.db",
      "/rollouts/search/..%2F..%2Frun.db",
      "/rollouts/..%2Fsearch/x",
      "/rollouts/search/%E0%A4%A",
      "/candidates/0000000",
    ];
    for (const path of attempts) {
      const response = await get(viewer.port, path, { cookie });
      expect([403, 404], path).toContain(response.status);
      expect(response.body).not.toContain("root:");
      expect(response.body).not.toContain("SQLite format");
    }
    expect((await get(viewer.port, "/", { cookie }, "POST")).status).toBe(405);
  });
});

describe("a viewer opened before the run starts", () => {
  it("waits for run.db instead of failing, then serves the run (no doubled runs/runs path)", async () => {
    const { mkdtempSync, mkdirSync, cpSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const dir = mkdtempSync(join(tmpdir(), "hsearch-view-early-"));
    mkdirSync(join(dir, "runs"));
    const early = await startViewer({ runDir: join(dir, "runs", "live"), port: 0 });
    try {
      const waitingPage = await get(early.port, `/?token=${early.token}`);
      expect(waitingPage.status).toBe(200);
      expect(waitingPage.body).toContain("Waiting for the run to start");
      expect(waitingPage.body).toContain('data-live="true"');
      cpSync(runDir, join(dir, "runs", "live"), { recursive: true });
      const report = await get(early.port, `/?token=${early.token}`);
      expect(report.body).toContain('<table class="rounds">');
    } finally {
      await early.close();
    }
    const status2 = await runCli(["status", "runs/nope"], { cwd: dir });
    expect(status2.code).toBe(2);
    expect(status2.stderr).not.toContain("runs/runs");
  });
});

describe("hsearch view through the CLI", () => {
  let child: ChildProcess | undefined;

  afterAll(() => {
    if (child && child.exitCode === null) child.kill("SIGKILL");
  });

  it("prints the URL, serves with the token, and stops cleanly on Ctrl-C", async () => {
    child = spawn(process.execPath, [...cli, "view", runDir, "--port", "0"], {
      cwd: work,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const proc = child;
    let stderr = "";
    proc.stderr?.on("data", (chunk) => {
      stderr += chunk;
    });
    const url = await new Promise<string>((resolve, reject) => {
      let out = "";
      proc.stdout?.on("data", (chunk) => {
        out += chunk;
        const line = out.split("\n").find((l) => l.startsWith("http://"));
        if (line && out.includes("\n")) resolve(line.trim());
      });
      proc.on("exit", (code) => reject(new Error(`view exited early (${code}): ${stderr}`)));
    });
    const parsed = new URL(url);
    expect(parsed.hostname).toBe("127.0.0.1");
    const port = Number(parsed.port);
    expect((await get(port, "/")).status).toBe(403);
    expect((await get(port, `${parsed.pathname}${parsed.search}`)).status).toBe(200);

    const exited = new Promise<number | null>((resolve) => proc.on("exit", (code) => resolve(code)));
    proc.kill("SIGINT");
    expect(await exited).toBe(0);
    expect(stderr).toContain("hsearch view: stopped");
  });
});

describe("pages of a running run", () => {
  it("every page updates live while the run runs, trajectory and side-by-side pages included, and none once it ends", async () => {
    const { mkdtempSync, cpSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const copy = join(mkdtempSync(join(tmpdir(), "hsearch-view-live-")), "run");
    cpSync(runDir, copy, { recursive: true });
    const store = openRunStore(copy);
    const seed = status.rounds[0]?.proposals[0]?.commit as string;
    const [first, second] = store.listRollouts(seed, "search");
    store.setRunState("running");
    store.close();
    const running = await startViewer({ runDir: copy, port: 0 });
    const paths = [
      "/",
      "/candidates",
      `/candidates/${seed}`,
      `/candidates/${seed}/files`,
      `/rollouts/search/${encodeURIComponent(first?.key as string)}`,
      `/side-by-side/search/${encodeURIComponent(first?.key as string)}/${encodeURIComponent(second?.key as string)}`,
    ];
    try {
      for (const path of paths) {
        const response = await get(
          running.port,
          `${path}${path.includes("?") ? "&" : "?"}token=${running.token}`,
        );
        expect(response.status, path).toBe(200);
        expect(response.body, path).toContain('<body data-live="true">');
      }
    } finally {
      await running.close();
    }
    for (const path of paths.slice(2)) {
      const response = await get(viewer.port, `${path}?token=${viewer.token}`);
      expect(response.status, path).toBe(200);
      expect(response.body, path).not.toContain("data-live");
    }
  });
});

describe("a trajectory page", () => {
  it("explains the verdict as Inspect explains a score: the outcome, each gate with ✓/✗ and what it checks", async () => {
    const store = openRunStore(runDir, { readonly: true });
    const seed = status.rounds[0]?.proposals[0]?.commit as string;
    const rollouts = store.listRollouts(seed, "search");
    store.close();
    const failed = rollouts.find((r) => r.kind === "blocked" && r.scores.strict_sa === false);
    const abstained = rollouts.find((r) => r.kind === "feasible");
    for (const rollout of [failed, abstained]) {
      expect(rollout).toBeDefined();
      const page = await get(
        viewer.port,
        `/rollouts/search/${encodeURIComponent(rollout?.key as string)}?token=${viewer.token}`,
      );
      expect(page.status).toBe(200);
      const explanation = page.body.slice(
        page.body.indexOf("<h2>Verifier</h2>"),
        page.body.indexOf("<h2>Timeline</h2>"),
      );
      if (rollout?.kind === "blocked") {
        expect(explanation).toContain("<strong>failed strict SA</strong>");
        expect(explanation).toContain(
          '<tr><th>strict SA</th><td class="worse">✗</td><td class="small">M0 ∧ M1 ∧ authorship ∧ M3</td></tr>',
        );
      } else {
        const abstainedHere = rollout?.scores.false_abstention === true;
        // A false abstention is a failure: ✗ and red, never a ✓.
        expect(explanation).toContain(
          `<tr><th>false abstention</th><td class="${abstainedHere ? "worse" : "better"}">${abstainedHere ? "✗" : "✓"}</td>`,
        );
      }
      expect(explanation).toMatch(/native verifier reward [\d.–]+ · ended: /);
    }
  });
});
