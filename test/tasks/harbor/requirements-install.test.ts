import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import yargs from "yargs";
import type { RequirementsReport } from "../../../src/api/harbor";
import type { CliIO } from "../../../src/cli/io";
import { registerHarbor } from "../../../src/cli/tasks-harbor";
import {
  type AptResult,
  type AptRunner,
  aptInstallCommand,
  type DebianHost,
  installPackages,
  parseReverseProvides,
  readAptOutput,
} from "../../../src/tasks/importers/harbor/host-packages";
import {
  type HostFacts,
  type PackageProvider,
  planInstall,
  tasksLeftUnrunnable,
} from "../../../src/tasks/importers/harbor/install-plan";

const temps: string[] = [];
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

/** Facts of a made-up machine: `shipped` null means no package lists. */
function facts(parts: {
  installed?: string[];
  shipped?: string[] | null;
  providers?: Record<string, PackageProvider[]>;
  commands?: Record<string, string>;
}): HostFacts {
  return {
    installed: new Set(parts.installed ?? []),
    shipped: parts.shipped === null ? null : new Set(parts.shipped ?? []),
    providers: new Map(Object.entries(parts.providers ?? {})),
    commands: new Map(Object.entries(parts.commands ?? {})),
  };
}

const NETCAT: PackageProvider[] = [
  { name: "netcat-openbsd", installed: false, priority: "optional" },
  { name: "netcat-traditional", installed: false, priority: "standard" },
];

describe("the install plan (pure)", () => {
  it("leaves out what is installed, installs what the archive ships, and names what it does not", () => {
    const plan = planInstall(
      ["jq", "python3", "jq", "python3-chess"],
      facts({ installed: ["python3"], shipped: ["jq"] }),
    );
    expect(plan.wanted).toEqual(["jq", "python3", "python3-chess"]);
    expect(plan.installed).toEqual(["python3"]);
    expect(plan.install).toEqual(["jq"]);
    expect(plan.outsideDebian).toEqual(["python3-chess"]);
    expect(plan.packageFor).toEqual({ jq: "jq" });
  });

  it("resolves a virtual package to the provider of highest Debian priority, then by name", () => {
    const plan = planInstall(["netcat"], facts({ providers: { netcat: NETCAT } }));
    expect(plan.resolved).toEqual([
      {
        name: "netcat",
        provider: "netcat-traditional",
        among: ["netcat-openbsd", "netcat-traditional"],
        why: "Debian priority standard",
      },
    ]);
    expect(plan.install).toEqual(["netcat-traditional"]);
    const unknown = planInstall(
      ["awk"],
      facts({
        providers: {
          awk: [
            { name: "mawk", installed: false },
            { name: "gawk", installed: false },
          ],
        },
      }),
    );
    expect(unknown.install).toEqual(["gawk"]);
    expect(unknown.resolved[0]?.why).toBe("Debian priority unknown");
  });

  it("prefers a provider that is wanted for its own sake, and one already installed", () => {
    const pillow = planInstall(
      ["python3-pil", "python3-pillow"],
      facts({
        shipped: ["python3-pil"],
        providers: { "python3-pillow": [{ name: "python3-pil", installed: false, priority: "optional" }] },
      }),
    );
    expect(pillow.install).toEqual(["python3-pil"]);
    expect(pillow.resolved[0]).toMatchObject({
      name: "python3-pillow",
      provider: "python3-pil",
      why: "wanted too",
    });
    const installed = planInstall(
      ["netcat"],
      facts({
        providers: {
          netcat: [NETCAT[0] as PackageProvider, { ...NETCAT[1], installed: true } as PackageProvider],
        },
      }),
    );
    expect(installed.providedByInstalled).toEqual([{ name: "netcat", by: "netcat-traditional" }]);
    expect(installed.install).toEqual([]);
  });

  it("leaves out a real package an installed package provides (Debian's npm next to NodeSource's nodejs)", () => {
    const plan = planInstall(
      ["npm"],
      facts({ shipped: ["npm"], providers: { npm: [{ name: "nodejs", installed: true }] } }),
    );
    expect(plan.providedByInstalled).toEqual([{ name: "npm", by: "nodejs" }]);
    expect(plan.install).toEqual([]);
  });

  it("leaves out nodejs and npm when node and npm are on the sandbox's PATH, and nothing else", () => {
    const plan = planInstall(
      ["nodejs", "npm", "jq"],
      facts({
        shipped: ["nodejs", "npm", "jq"],
        commands: { node: "/usr/local/bin/node", npm: "/usr/local/bin/npm" },
      }),
    );
    expect(plan.providedElsewhere).toEqual([
      { name: "nodejs", command: "node", path: "/usr/local/bin/node" },
      { name: "npm", command: "npm", path: "/usr/local/bin/npm" },
    ]);
    expect(plan.install).toEqual(["jq"]);
    // Without node on PATH, Debian's nodejs is installed.
    const noNode = planInstall(
      ["nodejs", "npm"],
      facts({ shipped: ["nodejs", "npm"], commands: { npm: "/usr/local/bin/npm" } }),
    );
    expect(noNode.install).toEqual(["nodejs"]);
  });

  it("without package lists installs the names as they are and cannot tell what is outside Debian", () => {
    const plan = planInstall(["jq", "netcat"], facts({ shipped: null }));
    expect(plan.install).toEqual(["jq", "netcat"]);
    expect(plan.outsideDebian).toBeNull();
  });

  it("names the tasks a failed package leaves without their packages, through a virtual name too", () => {
    const plan = planInstall(
      ["jq", "netcat", "telnet"],
      facts({ shipped: ["jq", "telnet"], providers: { netcat: NETCAT } }),
    );
    const tasks = [
      { id: "qemu", debian: ["netcat", "telnet"] },
      { id: "json", debian: ["jq"] },
      { id: "both", debian: ["jq", "netcat"] },
    ];
    expect(tasksLeftUnrunnable(["netcat-traditional"], plan, tasks)).toEqual([
      { id: "qemu", packages: ["netcat-traditional"] },
      { id: "both", packages: ["netcat-traditional"] },
    ]);
    expect(tasksLeftUnrunnable([], plan, tasks)).toEqual([]);
  });
});

describe("reading apt's answers", () => {
  it("reads the providers of each name from apt-cache showpkg", () => {
    const text = [
      "Package: netcat",
      "Versions: ",
      "",
      "Reverse Depends: ",
      "  qemu-thing,netcat",
      "Dependencies: ",
      "Provides: ",
      "Reverse Provides: ",
      "netcat-openbsd 1.219-1 (= )",
      "netcat-traditional 1.10-47 (= )",
      "Package: jq",
      "Versions: ",
      "1.6-2.1 (/var/lib/apt/lists/deb.debian.org_debian_dists_bookworm_main_binary-amd64_Packages.lz4)",
      "Reverse Provides: ",
      "Package: npm",
      "Reverse Provides: ",
      "nodejs 20.20.2-1nodesource1+repack1 (= )",
      "",
    ].join("\n");
    expect(parseReverseProvides(text)).toEqual(
      new Map([
        ["netcat", ["netcat-openbsd", "netcat-traditional"]],
        ["npm", ["nodejs"]],
      ]),
    );
  });

  it("finds apt's errors, the unmet dependencies it lists, and how many packages dpkg added", () => {
    const lines = [
      "Reading package lists...",
      "Some packages could not be installed. This may mean that you have",
      "The following packages have unmet dependencies:",
      " npm : Depends: nodejs:any",
      "       Depends: node-gyp but it is not going to be installed",
      "E: Unable to correct problems, you have held broken packages.",
    ];
    expect(readAptOutput(lines)).toEqual({
      errors: [
        "npm : Depends: nodejs:any",
        "Depends: node-gyp but it is not going to be installed",
        "Unable to correct problems, you have held broken packages.",
      ],
      newlyInstalled: 0,
    });
    const removing = [
      "The following packages will be REMOVED:",
      "  postfix",
      "The following NEW packages will be installed:",
      "  exim4-base exim4-config exim4-daemon-light",
      "0 upgraded, 3 newly installed, 1 to remove and 113 not upgraded.",
      "E: Packages need to be removed but remove is disabled.",
    ];
    expect(readAptOutput(removing).errors).toEqual([
      "it would remove postfix",
      "Packages need to be removed but remove is disabled.",
    ]);
    // A refused run announces what it would install; only dpkg's lines count.
    expect(
      readAptOutput(["0 upgraded, 5 newly installed, 1 to remove and 113 not upgraded."]).newlyInstalled,
    ).toBe(0);
    const installed = [
      "Selecting previously unselected package cowsay.",
      "Unpacking cowsay (3.03+dfsg2-8) ...",
      "Selecting previously unselected package libtext-charwidth-perl:amd64.",
      "Unpacking libcurl4:amd64 (7.88.1-10+deb12u15) over (7.88.1-10+deb12u14) ...",
    ];
    expect(readAptOutput(installed).newlyInstalled).toBe(2);
  });

  it("never lets apt remove a package to install another", () => {
    expect(aptInstallCommand(["npm"])).toContain("--no-remove");
    expect(aptInstallCommand(["npm"], true)).toEqual(expect.arrayContaining(["--simulate", "--no-remove"]));
  });
});

/**
 * A made-up apt: `refused` fails alone (as apt's simulation says), `conflicting` pairs install alone but not
 * together nor one next to the other installed (--no-remove), `brokenScript` unpacks but its install script fails;
 * everything else installs.
 */
function fakeApt(rules: {
  refused?: string[];
  conflicting?: Array<[string, string]>;
  brokenScript?: string[];
}) {
  const dpkg = new Set<string>();
  const runs: string[][] = [];
  const simulated: string[] = [];
  const refuse = (list: readonly string[]): string | undefined => {
    const refused = list.find((name) => rules.refused?.includes(name));
    if (refused) return `Package '${refused}' has no installation candidate`;
    const present = (name: string) => list.includes(name) || dpkg.has(name);
    const pair = rules.conflicting?.find(
      ([a, b]) => present(a) && present(b) && (list.includes(a) || list.includes(b)),
    );
    if (pair) return `${pair[0]} : Conflicts: ${pair[1]}`;
    return undefined;
  };
  const result = (exitCode: number, errors: string[], newlyInstalled = 0): AptResult => ({
    exitCode,
    errors,
    newlyInstalled,
  });
  const apt: AptRunner = {
    async install(packages, onLine) {
      runs.push([...packages]);
      onLine(`apt-get install ${packages.join(" ")}`);
      const error = refuse(packages);
      if (error) return result(100, [error]);
      const fresh = packages.filter((name) => !dpkg.has(name) && !rules.brokenScript?.includes(name));
      for (const name of fresh) dpkg.add(name);
      const broken = packages.filter((name) => rules.brokenScript?.includes(name));
      if (broken.length > 0)
        return result(100, ["Sub-process /usr/bin/dpkg returned an error code (1)"], fresh.length);
      return result(0, [], fresh.length);
    },
    async simulate(pkg) {
      simulated.push(pkg);
      const error = refuse([pkg]);
      return error ? result(100, [error]) : result(0, []);
    },
    installed: async (packages) => new Set(packages.filter((name) => dpkg.has(name))),
  };
  return { apt, runs, simulated, dpkg };
}

describe("installing, never all-or-nothing", () => {
  it("installs the whole list in one apt-get run when apt takes it", async () => {
    const { apt, runs, simulated } = fakeApt({});
    const lines: string[] = [];
    const outcome = await installPackages(["a", "b", "c"], apt, (line) => lines.push(line));
    expect(outcome).toEqual({ failed: [], newlyInstalled: 3, aptRuns: 1 });
    expect(runs).toEqual([["a", "b", "c"]]);
    expect(simulated).toEqual([]);
    // apt's own lines reach the progress output as they come.
    expect(lines).toContain("apt-get install a b c");
  });

  it("asks apt about each package when it refuses the list, and installs the others", async () => {
    const { apt, runs, dpkg } = fakeApt({ refused: ["npm"] });
    const lines: string[] = [];
    const outcome = await installPackages(["jq", "npm", "telnet"], apt, (line) => lines.push(line));
    expect(outcome.failed).toEqual([
      { package: "npm", reason: "Package 'npm' has no installation candidate" },
    ]);
    expect(runs).toEqual([
      ["jq", "npm", "telnet"],
      ["jq", "telnet"],
    ]);
    expect([...dpkg].sort()).toEqual(["jq", "telnet"]);
    expect(lines.join("\n")).toMatch(/npm: apt refuses it: Package 'npm' has no installation candidate/);
  });

  it("installs the last ones one at a time when they fail only together, judging by what dpkg has", async () => {
    const { apt, runs, dpkg } = fakeApt({ conflicting: [["postfix", "exim4"]], brokenScript: ["sshd"] });
    const outcome = await installPackages(["exim4", "jq", "postfix", "sshd"], apt, () => {});
    expect(runs).toEqual([
      ["exim4", "jq", "postfix", "sshd"],
      ["exim4", "jq", "postfix", "sshd"],
      ["exim4"],
      ["jq"],
      ["postfix"],
      ["sshd"],
    ]);
    expect(outcome.failed).toEqual([
      { package: "postfix", reason: "postfix : Conflicts: exim4" },
      { package: "sshd", reason: "Sub-process /usr/bin/dpkg returned an error code (1)" },
    ]);
    expect([...dpkg].sort()).toEqual(["exim4", "jq"]);
  });
});

/** A Harbor task directory whose Dockerfile installs `packages`. */
function harborTask(root: string, name: string, packages: string[]): void {
  const files: Record<string, string> = {
    "instruction.md": `Do the ${name} thing.\n`,
    "task.toml": `[task]\nname = "test/${name}"\n`,
    "environment/Dockerfile": `FROM debian:bookworm-slim\nWORKDIR /app\nRUN apt-get update && apt-get install -y ${packages.join(" ")}\n`,
    "solution/solve.sh": "#!/bin/bash\ntrue\n",
    "tests/test.sh": "#!/bin/bash\necho 1 > /logs/verifier/reward.txt\n",
  };
  for (const [file, text] of Object.entries(files)) {
    const path = join(root, name, file);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
  }
}

describe("hsearch tasks requirements --install", () => {
  const root = mkdtempSync(join(tmpdir(), "hsearch-requirements-"));
  temps.push(root);
  harborTask(root, "qemu-like", ["netcat", "telnet"]);
  harborTask(root, "node-like", ["nodejs", "npm", "jq"]);
  harborTask(root, "chess-like", ["jq", "python3-chess"]);

  // This made-up machine: Node.js in /usr/local, no netcat, and an archive without python3-chess.
  const host: DebianHost = {
    installed: async () => new Set(),
    available: async (names) => new Set(names.filter((name) => name !== "python3-chess")),
    facts: async (names) => ({
      installed: new Set(),
      shipped: new Set(names.filter((name) => !["netcat", "python3-chess"].includes(name))),
      providers: new Map([["netcat", NETCAT]]),
      commands: new Map([
        ["node", "/usr/local/bin/node"],
        ["npm", "/usr/local/bin/npm"],
      ]),
    }),
  };

  const run = async (args: string[], apt: AptRunner) => {
    let stdout = "";
    let stderr = "";
    let code = 0;
    const io: CliIO = {
      out: (text) => {
        stdout += text;
      },
      err: (text) => {
        stderr += text;
      },
      errInline: () => {},
      isTTY: false,
      cwd: root,
      env: {},
    };
    await registerHarbor(
      yargs().exitProcess(false),
      io,
      (value) => {
        code = value;
      },
      { host, apt, isRoot: () => true },
    ).parseAsync(["requirements", root, ...args]);
    return { stdout, stderr, code };
  };

  it("says what it resolved and left out, installs the rest, and exits 0", async () => {
    const { apt, runs } = fakeApt({});
    const result = await run(["--install"], apt);
    expect(runs).toEqual([["jq", "netcat-traditional", "telnet"]]);
    expect(result.stdout).toContain("npm: provided by /usr/local/bin/npm, not installed from Debian");
    expect(result.stdout).toContain("nodejs: provided by /usr/local/bin/node, not installed from Debian");
    expect(result.stdout).toContain(
      "netcat: a virtual package; installing netcat-traditional (of netcat-openbsd, netcat-traditional: Debian priority standard)",
    );
    expect(result.stdout).toContain("not in this machine's Debian archive: python3-chess");
    expect(result.stdout).toMatch(
      /installed 3 of 3 packages \(apt newly installed 3 with their dependencies\) in \d+ s/,
    );
    expect(result.code).toBe(0);
  });

  it("reports the packages apt refused and the tasks they leave without them, and exits 1", async () => {
    const { apt, runs } = fakeApt({ refused: ["netcat-traditional"] });
    const result = await run(["--install"], apt);
    expect(runs).toEqual([
      ["jq", "netcat-traditional", "telnet"],
      ["jq", "telnet"],
    ]);
    expect(result.stdout).toContain(
      [
        "not installed (1):",
        "  netcat-traditional: Package 'netcat-traditional' has no installation candidate",
        "tasks left without their packages (1):",
        "  harbor-qemu-like: netcat-traditional",
      ].join("\n"),
    );
    expect(result.stdout).toMatch(/^installed 2 of 3 packages/m);
    expect(result.code).toBe(1);
  });

  it("--json carries the plan and, after --install, its outcome; apt's lines go to stderr", async () => {
    const { apt } = fakeApt({ refused: ["telnet"] });
    const result = await run(["--install", "--json"], apt);
    const report = JSON.parse(result.stdout) as RequirementsReport;
    expect(report.plan.resolved.map((entry) => [entry.name, entry.provider])).toEqual([
      ["netcat", "netcat-traditional"],
    ]);
    expect(report.plan.providedElsewhere.map((entry) => entry.name)).toEqual(["nodejs", "npm"]);
    expect(report.plan.outsideDebian).toEqual(["python3-chess"]);
    expect(report.installable).toEqual(["jq", "netcat-traditional", "telnet"]);
    expect(report.install?.failed.map((failure) => failure.package)).toEqual(["telnet"]);
    expect(report.install?.unrunnable).toEqual([{ id: "harbor-qemu-like", packages: ["telnet"] }]);
    expect(result.stderr).toContain("apt-get install jq netcat-traditional telnet");
    expect(result.code).toBe(1);
  });
});
