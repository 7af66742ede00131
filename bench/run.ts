// Runs every benchmark in bench/ one after another (`npm run bench`); each prints its own figures.
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";

const dir = fileURLToPath(new URL(".", import.meta.url));
const only = process.argv.slice(2);
for (const file of readdirSync(dir)
  .filter((f) => f.endsWith(".ts") && f !== "run.ts")
  .sort()) {
  if (only.length > 0 && !only.some((name) => file.startsWith(name))) continue;
  console.log(`\n== bench/${file}`);
  const result = spawnSync(process.execPath, ["--import", "tsx", `${dir}${file}`], { stdio: "inherit" });
  if (result.status !== 0) process.exitCode = 1;
}
