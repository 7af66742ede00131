/**
 * The namespaces backend: the episode's root laid out on the host, then bubblewrap or unshare + setpriv (the
 * detected mechanism, session-plan.ts) starts the supervisor in new namespaces; the PID namespace dies with it.
 */
import { spawn } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { buildEpisodeRoot } from "./episode-root";
import type { SandboxBackend } from "./sandbox-backend";
import { identityTexts } from "./sandbox-host";
import { killGroup, SandboxSession } from "./sandbox-session";
import {
  bwrapSessionInvocation,
  episodeRootLayout,
  type SessionPlanInput,
  sessionFstab,
  supervisorEnv,
  unshareSessionInvocation,
  writableRootDirs,
} from "./session-plan";

export const namespacesBackend: SandboxBackend = {
  name: "namespaces",
  accepts: (options) => options.container === undefined,
  async start({ options, paths, entries, hasVarLib }) {
    const { info, dir, user } = options;
    await buildEpisodeRoot(
      paths.root,
      episodeRootLayout(entries, hasVarLib, options.workdir),
      user,
      writableRootDirs(options.workdir),
    );
    const input: SessionPlanInput = {
      info,
      hostEntries: entries,
      paths,
      readOnlyWorkspace: options.readOnlyWorkspace ?? false,
      user: info.privileged ? user : undefined,
      hasVarLib,
      ...(options.workdir !== undefined ? { workdir: options.workdir } : {}),
      ...(options.network ? { network: true } : {}),
    };
    const texts = info.privileged && user ? identityTexts(user) : undefined;
    if (texts) {
      input.identity = { passwd: join(dir, "passwd"), group: join(dir, "group") };
      await writeFile(input.identity.passwd, texts.passwd, { mode: 0o644 });
      await writeFile(input.identity.group, texts.group, { mode: 0o644 });
    }
    if (info.mechanism === "unshare") {
      input.fstabPath = join(dir, "fstab");
      await writeFile(input.fstabPath, sessionFstab(input), { mode: 0o644 });
    }
    const invocation =
      info.mechanism === "bwrap" ? bwrapSessionInvocation(input) : unshareSessionInvocation(input);
    const child = spawn(invocation.file, invocation.args, {
      env: supervisorEnv(),
      stdio: ["pipe", "pipe", "pipe", "pipe", "pipe"],
      // A new session: nothing in the sandbox has our terminal, and the whole group can be killed at once.
      detached: true,
    });
    return SandboxSession.open(options, paths, {
      child,
      repliesOnStdout: false,
      stop: async () => killGroup(child.pid),
    });
  },
};
