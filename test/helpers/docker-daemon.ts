import { execFileSync } from "node:child_process";

/** The docker daemon's version. npm test (scripts/test.sh) starts one where none answers, so none is a failure. */
export function dockerDaemon(): string {
  try {
    return execFileSync("docker", ["info", "--format", "{{.ServerVersion}}"], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      timeout: 20_000,
    }).trim();
  } catch (error) {
    throw new Error(
      `no docker daemon answers (${String(error).split("\n")[0]}); npm test starts one as root`,
    );
  }
}
