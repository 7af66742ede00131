/**
 * A task's own network (Harbor's `allow_internet = true`) is granted only when the user says so explicitly:
 * `eval --allow-internet`, or `HSEARCH_ALLOW_INTERNET=1` in the environment of the command or library call that
 * starts the work (read once there, never set, and passed on as data: `EnvironmentOptions.allowInternet`; a worker
 * reads its own). Off by default, so a task set cannot open the sandbox by itself. A granted episode shares
 * the host's network (namespace path: no network namespace of its own, so it also reaches the host's loopback
 * services; container paths: the engine's bridge).
 *
 * When it is not granted, a task that wanted network and failed is that task's infrastructure error, not the
 * agent's failure, where its output shows why: `networkFailureIn` finds the signs.
 */
import { badInput } from "../../core";

export const ALLOW_INTERNET_VARIABLE = "HSEARCH_ALLOW_INTERNET";

/** Whether the user allows tasks that ask for it network: the variable, `1`/`true`/`yes`, or off. */
export function internetAllowed(env: NodeJS.ProcessEnv = process.env): boolean {
  const value = (env[ALLOW_INTERNET_VARIABLE] ?? "").trim().toLowerCase();
  if (["", "0", "false", "no"].includes(value)) return false;
  if (["1", "true", "yes"].includes(value)) return true;
  throw badInput(`${ALLOW_INTERNET_VARIABLE} must be 1 or 0, got '${env[ALLOW_INTERNET_VARIABLE]}'`, {
    field: ALLOW_INTERNET_VARIABLE,
  });
}

/**
 * What a command prints when a host or the network cannot be reached (curl, wget, git, pip, apt, Python's
 * requests/urllib/socket, Node's getaddrinfo): the loopback's own refusals are not among them.
 */
const NETWORK_FAILURE =
  /Could not resolve host|Temporary failure in name resolution|Name or service not known|getaddrinfo (?:ENOTFOUND|EAI_AGAIN)|Network is unreachable|No route to host|NewConnectionError|Failed to establish a new connection|Could not resolve '|unable to resolve host address|nodename nor servname|URLError: <urlopen error \[Errno -[23]\]/i;

/** The first line of `output` that says the network could not be reached, or null. */
export function networkFailureIn(output: string): string | null {
  const line = output.split("\n").find((text) => NETWORK_FAILURE.test(text));
  return line === undefined ? null : line.trim().slice(0, 300);
}

/** The message of a task's infrastructure error when it asked for network that the run does not grant. */
export function noNetworkMessage(evidence: string): string {
  return (
    `the task needs internet (its task.toml says allow_internet = true), which this run does not grant: ` +
    `${evidence} — allow it with eval --allow-internet or ${ALLOW_INTERNET_VARIABLE}=1`
  );
}
