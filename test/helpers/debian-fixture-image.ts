/**
 * A small Debian image for the Docker path's end-to-end tests, made in seconds without network or debootstrap: the
 * files of this machine's installed Essential packages and apt (with their dependencies), a dpkg status naming only
 * those, and a local apt repository (`deb [trusted=yes] file:/srv/hsearch-fixture-repo ./`) of two fixture packages
 * built here with dpkg-deb, so a Dockerfile's `RUN apt-get update && apt-get install -y hsearch-fixture-tool` and a
 * test's `apt-get install -y hsearch-fixture-words` run for real, offline. Tagged FIXTURE_BASE_IMAGE (the fixtures'
 * FROM), with a label holding the hash of its content, so it is made again only when that changes.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const FIXTURE_BASE_IMAGE = "hsearch-fixture/debian:bookworm";
const REPO = "srv/hsearch-fixture-repo";
const LABEL = "hsearch.fixture";

/** The fixture packages: name → the files they install (path → [mode, content]). */
const PACKAGES: Record<string, Record<string, [number, string]>> = {
  "hsearch-fixture-tool": {
    "usr/bin/hsearch-fixture-tool": [0o755, '#!/bin/sh\necho "fixture tool 1.0"\n'],
  },
  "hsearch-fixture-words": {
    "usr/bin/hsearch-fixture-count": [0o755, '#!/bin/sh\nwc -l < "$1"\n'],
  },
};

const SEEDS = ["apt", "bash", "coreutils", "dpkg", "grep", "sed", "tar", "gzip", "findutils", "util-linux"];

/** A dpkg-query format field: `${Name}`. */
function field(name: string): string {
  return `\${${name}}`;
}

function query(args: string[]): string {
  return execFileSync("dpkg-query", args, { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
}

/** Installed packages: Essential ones, the seeds, and everything they depend on (first installed alternative). */
function packageClosure(): string[] {
  const installed = new Map<string, { essential: boolean; depends: string }>();
  /** Virtual names (awk) → the installed package that provides them (mawk). */
  const provided = new Map<string, string>();
  const format = `${field("Package")}\t${field("Essential")}\t${field("db:Status-Abbrev")}\t${field("Depends")}, ${field("Pre-Depends")}\t${field("Provides")}\n`;
  for (const line of query(["-W", "-f", format]).split("\n")) {
    const [name, essential, status, depends, provides] = line.split("\t");
    if (!name || !status?.startsWith("ii")) continue;
    installed.set(name, { essential: essential === "yes", depends: depends ?? "" });
    for (const virtual of (provides ?? "").split(","))
      provided.set(virtual.trim().replace(/\s*\(.*\)$/, ""), name);
  }
  const resolve = (name: string) => (installed.has(name) ? name : provided.get(name));
  const wanted = new Set<string>();
  const queue = [...SEEDS, ...[...installed].filter(([, info]) => info.essential).map(([name]) => name)];
  while (queue.length > 0) {
    const name = queue.pop() as string;
    if (wanted.has(name) || !installed.has(name)) continue;
    wanted.add(name);
    for (const clause of (installed.get(name)?.depends ?? "").split(",")) {
      const choices = clause
        .split("|")
        .map((choice) =>
          choice
            .trim()
            .replace(/\s*\(.*\)$/, "")
            .replace(/:\w+$/, ""),
        )
        .filter((choice) => choice !== "");
      const pick = choices.map(resolve).find((choice) => choice !== undefined);
      if (pick) queue.push(pick);
    }
  }
  return [...wanted].sort();
}

/** A host path with its first component resolved when that is a symlink (/bin/x → /usr/bin/x on merged /usr). */
function resolveTop(path: string, links: Map<string, string>): string {
  const [, top, ...rest] = path.split("/");
  const target = links.get(top ?? "");
  return target === undefined ? path : `/${[target, ...rest].join("/")}`;
}

function debianStatus(packages: string[]): string {
  const wanted = new Set(packages);
  return readFileSync("/var/lib/dpkg/status", "utf8")
    .split("\n\n")
    .filter((stanza) => wanted.has(/^Package: (\S+)$/m.exec(stanza)?.[1] ?? ""))
    .map((stanza) => `${stanza.trim()}\n`)
    .join("\n");
}

/** Build the fixture .debs and the repository's Packages index in `dir`/REPO. */
function buildRepository(dir: string): void {
  const repo = join(dir, REPO);
  mkdirSync(repo, { recursive: true });
  const index: string[] = [];
  for (const [name, files] of Object.entries(PACKAGES)) {
    const tree = join(dir, "debs", name);
    mkdirSync(join(tree, "DEBIAN"), { recursive: true });
    const control = `Package: ${name}\nVersion: 1.0\nArchitecture: all\nMaintainer: hsearch tests <tests@hsearch.invalid>\nDescription: hsearch fixture package\n`;
    writeFileSync(join(tree, "DEBIAN", "control"), control);
    for (const [path, [mode, content]] of Object.entries(files)) {
      mkdirSync(join(tree, path, ".."), { recursive: true });
      writeFileSync(join(tree, path), content);
      chmodSync(join(tree, path), mode);
    }
    const deb = join(repo, `${name}_1.0_all.deb`);
    execFileSync("dpkg-deb", ["--root-owner-group", "-Zgzip", "--build", tree, deb], { stdio: "ignore" });
    const bytes = readFileSync(deb);
    index.push(
      `${control}Filename: ./${name}_1.0_all.deb\nSize: ${bytes.length}\nSHA256: ${createHash("sha256").update(bytes).digest("hex")}\n`,
    );
  }
  writeFileSync(join(repo, "Packages"), index.join("\n"));
}

/** The fixture base image, made unless the engine has it with the same content. */
export function ensureFixtureBaseImage(): string {
  const packages = packageClosure();
  const versions = query(["-W", "-f", `${field("Package")} ${field("Version")}\n`, ...packages]);
  const hash = createHash("sha256")
    .update(versions)
    .update(JSON.stringify(PACKAGES))
    .digest("hex")
    .slice(0, 16);
  try {
    const label = execFileSync(
      "docker",
      ["image", "inspect", "--format", `{{index .Config.Labels "${LABEL}"}}`, FIXTURE_BASE_IMAGE],
      { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] },
    ).trim();
    if (label === hash) return FIXTURE_BASE_IMAGE;
  } catch {
    // not there yet
  }
  const dir = mkdtempSync(join(tmpdir(), "hsearch-fixture-image-"));
  try {
    const links = new Map<string, string>();
    const list: string[] = [];
    for (const top of ["bin", "sbin", "lib", "lib32", "lib64", "libx32"]) {
      try {
        if (lstatSync(`/${top}`).isSymbolicLink()) {
          const target = execFileSync("readlink", [`/${top}`], { encoding: "utf8" })
            .trim()
            .replace(/^\//, "");
          links.set(top, target);
          list.push(top);
        }
      } catch {
        // absent here
      }
    }
    const files = new Set<string>();
    for (const line of execFileSync("dpkg", ["-L", ...packages], {
      encoding: "utf8",
      maxBuffer: 64 * 1024 * 1024,
    }).split("\n")) {
      if (!line.startsWith("/") || line === "/.") continue;
      const path = resolveTop(line, links);
      try {
        const stat = lstatSync(path);
        if (stat.isFile() || stat.isSymbolicLink()) files.add(path.slice(1));
      } catch {
        // listed but not on this machine (a diverted or removed file)
      }
    }
    // dpkg's record of each package (its file list, checksums, scripts), so apt in the image installs cleanly.
    const wanted = new Set(packages);
    for (const name of readdirSync("/var/lib/dpkg/info"))
      if (wanted.has(name.replace(/(:\w+)?\.[^.]+$/, ""))) files.add(`var/lib/dpkg/info/${name}`);
    list.push(...[...files].sort());
    writeFileSync(join(dir, "host-files"), `${list.join("\n")}\n`);
    const root = join(dir, "root");
    for (const sub of [
      "etc/apt/sources.list.d",
      "etc/apt/preferences.d",
      "etc/apt/apt.conf.d",
      "var/lib/dpkg/info",
      "var/lib/dpkg/updates",
      "var/cache/apt/archives/partial",
      "var/lib/apt/lists/partial",
      "var/log",
      "tmp",
      "root",
      "home",
      "proc",
      "sys",
      "dev",
      "run",
    ])
      mkdirSync(join(root, sub), { recursive: true });
    chmodSync(join(root, "tmp"), 0o1777);
    writeFileSync(join(root, "var/lib/dpkg/status"), debianStatus(packages));
    writeFileSync(join(root, "var/lib/dpkg/available"), "");
    writeFileSync(join(root, "etc/apt/sources.list"), `deb [trusted=yes] file:/${REPO} ./\n`);
    writeFileSync(
      join(root, "etc/passwd"),
      "root:x:0:0:root:/root:/bin/bash\n_apt:x:42:65534::/nonexistent:/usr/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n",
    );
    writeFileSync(join(root, "etc/group"), "root:x:0:\nnogroup:x:65534:\n");
    buildRepository(root);
    const tar = join(dir, "root.tar");
    execFileSync("tar", [
      "--create",
      "--file",
      tar,
      "--numeric-owner",
      "--no-recursion",
      "--directory",
      "/",
      "--files-from",
      join(dir, "host-files"),
    ]);
    execFileSync("tar", [
      "--append",
      "--file",
      tar,
      "--numeric-owner",
      "--owner=0",
      "--group=0",
      "--directory",
      root,
      ".",
    ]);
    execFileSync(
      "docker",
      ["import", "--change", `LABEL ${LABEL}=${hash}`, "--change", 'CMD ["bash"]', tar, FIXTURE_BASE_IMAGE],
      {
        stdio: "ignore",
      },
    );
    return FIXTURE_BASE_IMAGE;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
