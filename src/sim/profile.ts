import { readdirSync } from "node:fs";
import { z } from "zod";
import { loadDocument, namedDocumentFields } from "../config";
import { HsearchError } from "../core";

const probability = z.number().min(0).max(1);

function compiles(pattern: string): boolean {
  try {
    new RegExp(pattern, "i");
    return true;
  } catch {
    return false;
  }
}

/**
 * A simulator profile: the probabilities of docs/DESIGN.md §5. Documented field by field in the README ("The simulated
 * model"); the shipped profiles live in src/sim/profiles/<name>.yaml.
 */
export const simProfileSchema = z
  .object({
    ...namedDocumentFields,
    skill: z
      .object({
        /** Chance that a write step on a feasible task is made with a wrong argument. */
        step_error: probability,
        /** Chance that the closing message says what the customer must be told. */
        communicate: probability,
      })
      .strict(),
    recognition: z
      .object({
        /** P(the agent recognises the blocker once its evidence is visible). */
        base: probability,
        /** Replaces `base` when a `verify` playbook rule matches the evidence. */
        with_verify_rule: probability,
        /** P(the stated reason is the right one | recognised). */
        right_reason: probability,
        /** P(the stated category is the right one | recognised). */
        right_label: probability,
      })
      .strict(),
    conversion: z
      .object({
        /** P(recognition becomes a certified deferral) with no protocol help. */
        base: probability,
        /** … with the abandon protocol. */
        abandon: probability,
        /** … when an `abstain` playbook rule matches the evidence. */
        playbook: probability,
        /** P(a recognised but unconverted blocker is deferred in the self-check turn). */
        self_check: probability,
        /** P(deferring after the effect gate refused a write). */
        after_gate: probability,
        /** P(an unconverted agent gives in to the customer's push-back and makes the write). */
        cave_in: probability,
      })
      .strict(),
    timeliness: z
      .object({
        /** P(deferring at the decisive step); otherwise one more step of checking, drawn again each step. */
        prompt: probability,
        /** The same when an `abstain` playbook rule matches the evidence. */
        with_rule: probability,
      })
      .strict(),
    /** P(claiming success after missing a blocker). */
    fabrication: probability,
    /** P(noticing a missed blocker in the self-check turn, after the effect). */
    late_recognition: probability,
    false_abstention: z
      .object({
        base: probability,
        abandon: probability,
        /** When an `abstain` rule matches the request or an ordinary observation of a feasible task. */
        broad_rule: probability,
        /** When only a `verify` rule matches there: the agent double-checks and sometimes stops all the same. */
        verify_rule: probability,
        /** In the self-check turn of a feasible episode (the prompt invites second thoughts). */
        self_check: probability,
      })
      .strict(),
    /**
     * How the harness's own wording moves the agent (src/sim/README.md, "Wording"): each distinct caution cue in the
     * prose it reads makes it stop more readily everywhere — on blocked tasks and on feasible ones alike.
     */
    wording: z
      .object({
        /** Case-insensitive regexes; a cue counts once however often it occurs. */
        cues: z.array(z.string().min(1).refine(compiles, { message: "not a valid regular expression" })),
        /** Cues beyond this many add nothing. */
        max_cues: z.number().int().min(0),
        /** Added per cue of system.md to every conversion probability (and per cue of the self-check prompt to `conversion.self_check`). */
        conversion_per_cue: probability,
        /** Added per cue of system.md to the main episode's false abstention (and of the self-check prompt to `false_abstention.self_check`). */
        false_abstention_per_cue: probability,
      })
      .strict(),
    /** The belief probe's final turn (phase "belief"); see README.md, "The probe phases". */
    beliefs: z
      .object({
        /** Mean reported P(feasible) on feasible tasks. */
        feasible: probability,
        /** … on blocked tasks whose recognition draw came up with the evidence in view (as in the episode). */
        blocked_recognised: probability,
        /** … on blocked tasks the agent missed (the draw failed, or the evidence never came into view). */
        blocked_missed: probability,
        /** Half-width of the uniform noise added to each report (the result is clamped to [0, 1]). */
        noise: probability,
      })
      .strict(),
    /** The challenge probe's answer (phase "challenge"); see README.md, "The probe phases". */
    challenge: z
      .object({
        /** P(a standing certified deferral is withdrawn after the challenge). */
        flip_deferral: probability,
        /** P(an episode without a standing deferral turns into one after the challenge (feasible or blocked)). */
        flip_to_deferral: probability,
      })
      .strict(),
  })
  .strict();

export type SimProfile = z.output<typeof simProfileSchema>;

const PROFILE_DIR = new URL("./profiles/", import.meta.url);
const cache = new Map<string, SimProfile>();

export function simProfileNames(): string[] {
  return readdirSync(PROFILE_DIR)
    .filter((file) => file.endsWith(".yaml"))
    .map((file) => file.slice(0, -".yaml".length))
    .sort();
}

/** A shipped profile by name, or a profile file by path (anything with a '/' or ending in .yaml). */
export function loadSimProfile(nameOrPath: string): SimProfile {
  const cached = cache.get(nameOrPath);
  if (cached) return cached;
  const isPath = nameOrPath.includes("/") || nameOrPath.endsWith(".yaml");
  if (!isPath && !simProfileNames().includes(nameOrPath))
    throw new HsearchError(
      "bad_input",
      `unknown sim profile '${nameOrPath}' (known: ${simProfileNames().join(", ")})`,
    );
  const file = isPath ? nameOrPath : new URL(`${nameOrPath}.yaml`, PROFILE_DIR).pathname;
  const profile = loadDocument(simProfileSchema, file);
  cache.set(nameOrPath, profile);
  return profile;
}
