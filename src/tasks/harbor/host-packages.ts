/**
 * The thin layer over this machine's Debian package tools: which packages are installed (dpkg-query), which the
 * archive ships (apt-cache), and installing the missing ones (apt-get, as root). The sandbox shows the host's /usr,
 * so the host's packages are what a task's commands find.
 */
import { existsSync, readdirSync } from "node:fs";
import { execa } from "execa";
import type { HostPackages } from "./import-harbor";

export function debianHost(): HostPackages {
  return {
    async installed(packages) {
      if (packages.length === 0) return new Set();
      // dpkg-query's own field syntax, not a template.
      const format = ["-f=$", "{Package} $", "{db:Status-Abbrev}\\n"].join("");
      const result = await execa("dpkg-query", ["-W", format, ...packages], {
        reject: false,
      });
      const installed = new Set<string>();
      for (const line of result.stdout.split("\n")) {
        const [name, status] = line.trim().split(/\s+/);
        if (name && status?.startsWith("ii")) installed.add(name.replace(/:.*$/, ""));
      }
      return installed;
    },
    async available(packages) {
      if (packages.length === 0) return new Set();
      if (!hasPackageLists()) return null;
      const result = await execa("apt-cache", ["show", "--no-all-versions", ...packages], { reject: false });
      const shipped = new Set<string>();
      for (const match of result.stdout.matchAll(/^Package: (\S+)$/gm)) shipped.add(match[1] as string);
      // Virtual packages (provided by another) are not "shown"; ask which real package provides them.
      for (const name of packages.filter((name) => !shipped.has(name))) {
        const policy = await execa("apt-cache", ["showpkg", name], { reject: false });
        if (/^Reverse Provides:\s*\n\S/m.test(policy.stdout)) shipped.add(name);
      }
      return shipped;
    },
  };
}

/** apt-cache answers from the package lists; without them (no `apt-get update` yet) it cannot tell anything. */
function hasPackageLists(): boolean {
  const dir = "/var/lib/apt/lists";
  return existsSync(dir) && readdirSync(dir).some((name) => name.includes("_Packages"));
}

/** The command that installs `packages`, as a person would type it. */
export function aptInstallCommand(packages: readonly string[]): string[] {
  return [
    "apt-get",
    "-o",
    "DPkg::Lock::Timeout=600",
    "install",
    "-y",
    "--no-install-recommends",
    ...packages,
  ];
}

/** Install with apt as root; the caller checks root first. Output goes to the caller's streams. */
export async function aptInstall(
  packages: readonly string[],
  output: { out: (text: string) => void; err: (text: string) => void },
): Promise<number> {
  const [file, ...args] = aptInstallCommand(packages);
  const result = await execa(file as string, args, {
    reject: false,
    all: true,
    env: { DEBIAN_FRONTEND: "noninteractive" },
  });
  if (result.all) (result.exitCode === 0 ? output.out : output.err)(`${result.all}\n`);
  return result.exitCode ?? 1;
}
