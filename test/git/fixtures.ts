import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach } from "vitest";

const created: string[] = [];

/** A fresh temporary directory, removed after the test. */
export async function tempDir(prefix = "hsearch-git-"): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  created.push(dir);
  return dir;
}

afterEach(async () => {
  for (const dir of created.splice(0)) await rm(dir, { recursive: true, force: true });
});

export const SEED_FILES: Record<string, string> = {
  "harness.yaml": "name: abandon\nagent: {max_steps: 30, temperature: 0}\nprotocols: {abandon: true}\n",
  "system.md": "You are a careful agent.\n\n{{policy}}\n\n{{protocols}}\n\n{{playbook}}\n",
  "playbook.yaml": "rules: []\n",
  "prompts/self-check.md": "Check your work once.\n",
};

export async function writeFiles(dir: string, files: Record<string, string>): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), content);
  }
}

/** A seed harness directory with SEED_FILES. */
export async function seedHarness(files: Record<string, string> = SEED_FILES): Promise<string> {
  const dir = join(await tempDir("hsearch-seed-"), "abandon");
  await writeFiles(dir, files);
  return dir;
}
