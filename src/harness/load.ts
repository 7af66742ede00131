import { readdirSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import {
  type HarnessConfig,
  harnessConfigSchema,
  type PlaybookRule,
  parsePositioned,
  playbookSchema,
  validateDocument,
} from "../config";
import { HsearchError, hashJson, readRegularFile } from "../core";

/** A validated harness: its config, templates and playbook, plus the raw files it was read from. */
export interface Harness {
  config: HarnessConfig;
  system: string;
  playbook: PlaybookRule[];
  prompts: Partial<Record<HarnessPromptName, string>>;
  /** Every file of the harness by relative path (what a proposer sees and edits). */
  files: Record<string, string>;
  /** Hash of the files: identifies a harness independently of where it lives. */
  hash: string;
  /** Where it was loaded from, for messages. */
  label: string;
}

export const HARNESS_PROMPTS = ["self-check", "report", "challenge", "continue"] as const;
export type HarnessPromptName = (typeof HARNESS_PROMPTS)[number];

export const TEMPLATE_PLACEHOLDERS = ["policy", "protocols", "playbook"] as const;
type TemplatePlaceholder = (typeof TEMPLATE_PLACEHOLDERS)[number];
const PLACEHOLDER = /\{\{\s*([^}]*?)\s*\}\}/g;

const KNOWN_FILE =
  /^(harness\.yaml|system\.md|playbook\.yaml|README\.md|provenance\.json|prompts\/[a-z0-9-]+\.md)$/;

/** Read every file of a harness directory (no symlinks, no dot files). */
export function readHarnessFiles(
  dir: string,
  limits: HarnessLimits = HARNESS_LIMITS,
): Record<string, string> {
  let stat: ReturnType<typeof statSync>;
  try {
    stat = statSync(dir);
  } catch (error) {
    throw new HsearchError("not_found", "no such harness directory", { file: dir, cause: error });
  }
  if (!stat.isDirectory()) throw new HsearchError("bad_input", "a harness is a directory", { file: dir });
  const files: Record<string, string> = {};
  const walk = (current: string): void => {
    for (const entry of readdirSync(current, { withFileTypes: true }).sort((a, b) =>
      a.name.localeCompare(b.name),
    )) {
      if (entry.name.startsWith(".")) continue;
      const path = join(current, entry.name);
      if (entry.isSymbolicLink())
        throw new HsearchError("bad_input", "a harness may not contain symlinks", { file: path });
      if (entry.isDirectory()) walk(path);
      // Sized before reading: a 50 MB system.md is refused by its size, not read into memory first.
      else files[relative(dir, path).split(sep).join("/")] = readRegularFile(path, limits.total_chars * 4);
    }
  };
  walk(dir);
  return files;
}

export function loadHarness(dir: string, limits: HarnessLimits = HARNESS_LIMITS): Harness {
  return parseHarness(readHarnessFiles(dir, limits), dir, limits);
}

/**
 * Validate a harness given as files (a directory on disk or a proposal in memory). Errors name the file, the
 * field and the line.
 */
export function parseHarness(
  files: Record<string, string>,
  label: string,
  limits: HarnessLimits = HARNESS_LIMITS,
): Harness {
  const at = (name: string) => join(label, name);
  for (const name of Object.keys(files)) {
    if (!KNOWN_FILE.test(name))
      throw new HsearchError(
        "bad_input",
        "unexpected file in a harness (allowed: harness.yaml, system.md, playbook.yaml, README.md, provenance.json, prompts/<name>.md)",
        { file: at(name) },
      );
  }
  const configText = files["harness.yaml"];
  if (configText === undefined)
    throw new HsearchError("bad_input", "missing harness.yaml", { file: at("harness.yaml") });
  const config = validateDocument(harnessConfigSchema, parsePositioned(configText, at("harness.yaml")));

  const system = files["system.md"];
  if (system === undefined)
    throw new HsearchError("bad_input", "missing system.md", { file: at("system.md") });
  checkPlaceholders(system, at("system.md"));
  checkSize(system, limits.template_chars, at("system.md"), "harness_file_chars");

  const playbookText = files["playbook.yaml"];
  const playbook =
    playbookText === undefined || playbookText.trim() === ""
      ? []
      : validateDocument(playbookSchema, parsePositioned(playbookText, at("playbook.yaml")));
  if (playbook.length > config.playbook.max_rules)
    throw new HsearchError(
      "bad_input",
      `${playbook.length} rules exceed playbook.max_rules = ${config.playbook.max_rules}`,
      {
        file: at("playbook.yaml"),
      },
    );

  checkRequiredPlaceholders(system, config, playbook.length, at("system.md"));
  const total = Object.values(files).reduce((sum, text) => sum + text.length, 0);
  if (total > limits.total_chars)
    throw new HsearchError(
      "bad_input",
      `the harness files hold ${total} characters, more than ${limits.total_chars} (limits.harness_total_chars)`,
      { file: label },
    );

  const prompts: Harness["prompts"] = {};
  for (const name of Object.keys(files)) {
    if (!name.startsWith("prompts/")) continue;
    const prompt = name.slice("prompts/".length, -".md".length);
    if (!(HARNESS_PROMPTS as readonly string[]).includes(prompt))
      throw new HsearchError(
        "bad_input",
        `unknown prompt '${prompt}' (known: ${HARNESS_PROMPTS.join(", ")})`,
        {
          file: at(name),
        },
      );
    const text = files[name] ?? "";
    if (text.trim() === "")
      throw new HsearchError("bad_input", "a prompt may not be empty", { file: at(name) });
    checkSize(text, limits.template_chars, at(name), "harness_file_chars");
    prompts[prompt as HarnessPromptName] = text;
  }
  return { config, system, playbook, prompts, files, hash: hashJson(files), label };
}

/**
 * Sizes a harness may not exceed (issue 11.2): a proposal that balloons a prompt is refused before any rollout, not
 * discovered as a slow or truncated run. Playbook patterns and notes are limited in the playbook schema.
 */
export interface HarnessLimits {
  /** Characters of one template (system.md, a prompt). */
  template_chars: number;
  /** Characters of all files together; a file over four times this many bytes is refused before it is read. */
  total_chars: number;
}

/** The defaults; a run sets its own in the search config's `limits`. */
export const HARNESS_LIMITS: HarnessLimits = { template_chars: 20_000, total_chars: 100_000 };

/** The search config's `limits` as harness limits (the defaults when a config has none). */
export function harnessLimitsOf(
  limits: { harness_file_chars: number; harness_total_chars: number } | undefined,
): HarnessLimits {
  return limits
    ? { template_chars: limits.harness_file_chars, total_chars: limits.harness_total_chars }
    : HARNESS_LIMITS;
}

function checkSize(text: string, max: number, file: string, setting: string): void {
  if (text.length <= max) return;
  const line = text.slice(0, max).split("\n").length;
  throw new HsearchError("bad_input", `${text.length} characters, more than ${max} (limits.${setting})`, {
    file,
    line,
  });
}

/**
 * The placeholders the harness needs: `{{policy}}` always (without it the agent never reads the domain policy), and
 * `{{protocols}}` / `{{playbook}}` when something would be rendered into them — an enabled protocol with
 * instructions, or playbook rules — since otherwise that part of the harness silently never reaches the agent.
 */
function checkRequiredPlaceholders(
  template: string,
  config: HarnessConfig,
  rules: number,
  file: string,
): void {
  const present = new Set([...template.matchAll(PLACEHOLDER)].map((match) => match[1] ?? ""));
  const { protocols } = config;
  const required: Array<[TemplatePlaceholder, string]> = [["policy", "the agent would never see the policy"]];
  const instructed = (["abandon", "effect_gate", "report"] as const).filter(
    (name) => protocols[name].enabled,
  );
  if (instructed.length > 0)
    required.push(["protocols", `the enabled protocol ${instructed.join(", ")} would never reach the agent`]);
  if (config.playbook.enabled && rules > 0)
    required.push(["playbook", `the ${rules} playbook rule(s) would never reach the agent`]);
  for (const [name, why] of required)
    if (!present.has(name))
      throw new HsearchError("bad_input", `system.md must contain {{${name}}}: ${why}`, {
        file,
        field: `{{${name}}}`,
      });
}

function checkPlaceholders(template: string, file: string): void {
  for (const match of template.matchAll(PLACEHOLDER)) {
    const name = match[1] ?? "";
    if (!(TEMPLATE_PLACEHOLDERS as readonly string[]).includes(name)) {
      const line = template.slice(0, match.index).split("\n").length;
      throw new HsearchError(
        "bad_input",
        `unknown placeholder {{${name}}} (known: ${TEMPLATE_PLACEHOLDERS.map((p) => `{{${p}}}`).join(", ")})`,
        { file, line },
      );
    }
  }
}

/** Fill the system template. Placeholders were checked at load time. */
export function renderTemplate(
  template: string,
  values: Record<(typeof TEMPLATE_PLACEHOLDERS)[number], string>,
): string {
  return template.replace(PLACEHOLDER, (_, name: string) => values[name as keyof typeof values] ?? "").trim();
}
