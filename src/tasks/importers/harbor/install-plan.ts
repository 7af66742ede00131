/**
 * Which Debian packages to install for the packages a set of tasks wants, from facts about this machine — pure, so a
 * test can check every rule with a made-up machine. `apt-get install` of the wanted names as they are fails as a whole
 * on the published Terminal-Bench 2 set: `netcat` is a virtual package apt will not choose a provider for, and
 * Debian's `npm` conflicts with a Node.js installed from elsewhere. Per wanted name, the first rule that applies:
 *   installed as itself                               → nothing to do
 *   provided (Debian's Provides:) by an installed one → nothing to do (`npm` by NodeSource's `nodejs`)
 *   its command is on the sandbox's PATH (table)      → nothing to do, said so (`npm` in /usr/local/bin)
 *   no package lists                                  → install it as named (apt will tell)
 *   shipped by the archive                            → install it
 *   virtual, provided by archive packages             → install one provider: one that is installed anyway
 *                                                       (wanted too), else the highest Debian priority, then name
 *   none of these                                     → outside this machine's Debian archive
 */
import { HsearchError } from "../../../core";

/** A package that provides a name (Debian's `Provides:`). */
export interface PackageProvider {
  name: string;
  installed: boolean;
  /** Debian's Priority field (required, important, standard, optional, extra), when the archive says. */
  priority?: string;
}

/** What the machine has, as the thin layer (host-packages.ts) finds it for the wanted names. */
export interface HostFacts {
  /** Wanted names installed as themselves. */
  installed: ReadonlySet<string>;
  /** Wanted names the archive ships as packages of their own; null when the machine has no package lists. */
  shipped: ReadonlySet<string> | null;
  /** Wanted name → the packages, installed or in the archive, that provide it. */
  providers: ReadonlyMap<string, readonly PackageProvider[]>;
  /** Command of PROVIDED_BY_COMMAND → the file it runs from on the sandbox's PATH; absent when not there. */
  commands: ReadonlyMap<string, string>;
}

/**
 * Debian packages whose program a machine often has from elsewhere (NodeSource, nvm copied to /usr/local, a
 * tarball): when the command is on the sandbox's PATH, the task's command finds it and Debian's package would only
 * conflict with it (Debian's `npm` needs Debian's `nodejs`).
 */
export const PROVIDED_BY_COMMAND: ReadonlyArray<{ package: string; command: string }> = [
  { package: "nodejs", command: "node" },
  { package: "npm", command: "npm" },
];

export interface ResolvedVirtual {
  /** The virtual name a task asked for. */
  name: string;
  /** The provider that will be installed. */
  provider: string;
  /** Every provider the archive has, sorted by name. */
  among: string[];
  /** Why this one: "wanted too", or "Debian priority P". */
  why: string;
}

export interface InstallPlan {
  /** Every wanted name, sorted. */
  wanted: string[];
  installed: string[];
  providedByInstalled: Array<{ name: string; by: string }>;
  providedElsewhere: Array<{ name: string; command: string; path: string }>;
  resolved: ResolvedVirtual[];
  /** Wanted names the archive neither ships nor provides; null when the machine cannot tell (no package lists). */
  outsideDebian: string[] | null;
  /** The packages to install, distinct and sorted (virtual names replaced by their provider). */
  install: string[];
  /** Wanted name → the package installed for it (itself, or a virtual name's provider). */
  packageFor: Record<string, string>;
}

const PRIORITIES = ["required", "important", "standard", "optional", "extra"];

export function planInstall(wanted: readonly string[], facts: HostFacts): InstallPlan {
  const names = [...new Set(wanted)].sort();
  const plan: InstallPlan = {
    wanted: names,
    installed: [],
    providedByInstalled: [],
    providedElsewhere: [],
    resolved: [],
    outsideDebian: facts.shipped ? [] : null,
    install: [],
    packageFor: {},
  };
  const virtual: string[] = [];
  for (const name of names) {
    const providers = facts.providers.get(name) ?? [];
    const installedProvider = providers
      .filter((provider) => provider.installed)
      .map((provider) => provider.name)
      .sort()[0];
    const elsewhere = PROVIDED_BY_COMMAND.find((rule) => rule.package === name);
    const path = elsewhere && facts.commands.get(elsewhere.command);
    if (facts.installed.has(name)) plan.installed.push(name);
    else if (installedProvider) plan.providedByInstalled.push({ name, by: installedProvider });
    else if (elsewhere && path) plan.providedElsewhere.push({ name, command: elsewhere.command, path });
    else if (!facts.shipped || facts.shipped.has(name)) plan.packageFor[name] = name;
    else if (providers.length > 0) virtual.push(name);
    else plan.outsideDebian?.push(name);
  }
  // Virtual names last, so a provider that is wanted for its own sake is known.
  for (const name of virtual) {
    const resolved = chooseProvider(
      name,
      facts.providers.get(name) ?? [],
      new Set(Object.values(plan.packageFor)),
    );
    plan.resolved.push(resolved);
    plan.packageFor[name] = resolved.provider;
  }
  plan.install = [...new Set(Object.values(plan.packageFor))].sort();
  return plan;
}

function chooseProvider(
  name: string,
  providers: readonly PackageProvider[],
  installing: ReadonlySet<string>,
): ResolvedVirtual {
  const among = [...new Set(providers.map((provider) => provider.name))].sort();
  const alsoWanted = among.find((provider) => installing.has(provider));
  if (alsoWanted) return { name, provider: alsoWanted, among, why: "wanted too" };
  const rank = (provider: PackageProvider) => {
    const index = PRIORITIES.indexOf(provider.priority ?? "");
    return index === -1 ? PRIORITIES.length : index;
  };
  const best = [...providers].sort((a, b) => rank(a) - rank(b) || (a.name < b.name ? -1 : 1))[0];
  if (!best) throw new HsearchError("internal", `virtual package ${name} without providers`);
  return { name, provider: best.name, among, why: `Debian priority ${best.priority ?? "unknown"}` };
}

/** The tasks that need a package that failed to install (directly, or as the provider of a virtual name). */
export function tasksLeftUnrunnable(
  failed: readonly string[],
  plan: InstallPlan,
  tasks: ReadonlyArray<{ id: string; debian: readonly string[] }>,
): Array<{ id: string; packages: string[] }> {
  const failedSet = new Set(failed);
  const left: Array<{ id: string; packages: string[] }> = [];
  for (const task of tasks) {
    const packages = [
      ...new Set(
        task.debian
          .map((name) => plan.packageFor[name])
          .filter((pkg): pkg is string => !!pkg && failedSet.has(pkg)),
      ),
    ].sort();
    if (packages.length > 0) left.push({ id: task.id, packages });
  }
  return left;
}
