import { createRng, type Rng } from "../core";
import { FAMILIES, type Family } from "../domain";
import type { SimContext } from "../harness";
import { compilePattern } from "../harness";
import { REPORT_BELIEF_TOOL, WITHDRAW_DEFERRAL_TOOL } from "../probes";
import type { SimHistory } from "./history";
import type { SimProfile } from "./profile";

/**
 * The simulator's decision for one turn (docs/DESIGN.md §5), a pure function of the profile, the structured context, the
 * history read back from the messages, and uniforms drawn from (seed, task, repeat). Because the uniforms do not
 * depend on the harness, two harnesses see the same draws: a better harness changes thresholds, not luck, which
 * keeps comparisons between candidates paired.
 */
export interface SimToolCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

export type SimAction =
  | { kind: "call"; calls: SimToolCall[]; text?: string }
  | { kind: "text"; text: string };

function toolCall(id: string, name: string, args: Record<string, unknown>): SimAction {
  return { kind: "call", calls: [{ id, name, arguments: args }] };
}

interface Draws {
  recognise: number;
  rightReason: number;
  rightLabel: number;
  convert: number;
  delays: number[];
  cave: number;
  fabricate: number;
  selfCheck: number;
  late: number;
  afterGate: number;
  falseAbstain: number;
  falseAbstainStep: number;
  ruleAbstain: number;
  skill: number[];
  communicate: number;
  /** Drawn last, so adding it left every earlier draw unchanged. */
  selfCheckFalse: number;
}

function draw(seed: number, repeat: number, taskId: string): Draws {
  const rng = createRng(seed, "sim", taskId, repeat);
  return {
    recognise: rng.next(),
    rightReason: rng.next(),
    rightLabel: rng.next(),
    convert: rng.next(),
    delays: Array.from({ length: 6 }, () => rng.next()),
    cave: rng.next(),
    fabricate: rng.next(),
    selfCheck: rng.next(),
    late: rng.next(),
    afterGate: rng.next(),
    falseAbstain: rng.next(),
    falseAbstainStep: rng.next(),
    ruleAbstain: rng.next(),
    skill: Array.from({ length: 32 }, () => rng.next()),
    communicate: rng.next(),
    selfCheckFalse: rng.next(),
  };
}

/** A turn of the agent on a blocked or a feasible task. */
type AgentTurn = (
  profile: SimProfile,
  context: SimContext,
  history: SimHistory,
  draws: Draws,
  step: number,
) => SimAction;

/** A turn of a probe (belief, challenge): the agent's arguments and the probe's own random stream. */
type ProbeTurn = (
  profile: SimProfile,
  context: SimContext,
  history: SimHistory,
  draws: Draws,
  rng: Rng,
  step: number,
) => SimAction;

const PUSH_BACK = /are you sure|check again/i;

export function decide(
  profile: SimProfile,
  context: SimContext,
  history: SimHistory,
  seed: number,
  repeat: number,
): SimAction {
  // The harness's continue message answers a final text no customer answered (DESIGN §4): the simulator's text-only
  // turns without a customer are final, so it restates that message. It draws nothing, so every outcome stays as it
  // was; the episode only gains the model call and its step.
  if (context.continued) return { kind: "text", text: history.said.at(-1) ?? "I have nothing to add." };
  const draws = draw(seed, repeat, context.task_id);
  const step = history.turns + 1;
  if (context.phase === "report") return report(profile, context, history, draws);
  // The probe phases draw from their own streams, so adding them left every main-episode draw unchanged.
  const probeRng = (phase: string) => createRng(seed, "sim", context.task_id, repeat, phase);
  if (context.phase === "belief") return belief(profile, context, history, draws, probeRng("belief"), step);
  if (context.phase === "challenge")
    return challenge(profile, context, history, draws, probeRng("challenge"), step);
  if (context.kind === "feasible") return feasibleTurn(profile, context, history, draws, step);
  return blockedTurn(profile, context, history, draws, step);
}

// ---------------------------------------------------------------------------------------------------------------
// Evidence and rules

interface Evidence {
  /** The step at which the evidence is first in view, or null. */
  visibleAt: number | null;
  /** The text that shows it (an observation, or the instruction for spec evidence). */
  text: string;
}

function evidence(context: SimContext, history: SimHistory): Evidence {
  const { cues } = context;
  const after = cues.evidence_after ?? 0;
  const needle = cues.evidence_text?.toLowerCase();
  if (after === 0) return { visibleAt: 1, text: history.instruction };
  // Evidence in the request itself that may only be acted on after some steps (retail: authenticate first).
  const inInstruction = needle !== undefined && history.instruction.toLowerCase().includes(needle);
  for (const call of history.calls) {
    // Evidence shows in the observation of the revealing step (when its text is there: the environment decides).
    const revealing = call.kind === "ref" && call.index === after - 1 && call.observation !== "";
    if (revealing && inInstruction) return { visibleAt: call.step + 1, text: history.instruction };
    if (revealing && (needle === undefined || call.observation.toLowerCase().includes(needle)))
      return { visibleAt: call.step + 1, text: call.observation };
  }
  return { visibleAt: null, text: "" };
}

function rulesMatching(context: SimContext, text: string, then: "abstain" | "verify"): boolean {
  return context.playbook.some(
    (rule) => rule.then === then && rule.patterns.some((pattern) => compilePattern(pattern)(text)),
  );
}

interface Recognition {
  seen: Evidence;
  /** An `abstain` playbook rule matches the evidence. */
  ruleAbstain: boolean;
  /** The recognition draw for this task came up, with the evidence in view. */
  recognised: boolean;
}

function recognition(
  profile: SimProfile,
  context: SimContext,
  history: SimHistory,
  draws: Draws,
): Recognition {
  const seen = evidence(context, history);
  const ruleAbstain = seen.visibleAt !== null && rulesMatching(context, seen.text, "abstain");
  const ruleVerify = seen.visibleAt !== null && rulesMatching(context, seen.text, "verify");
  const pRecognise =
    ruleVerify || ruleAbstain ? profile.recognition.with_verify_rule : profile.recognition.base;
  return { seen, ruleAbstain, recognised: seen.visibleAt !== null && draws.recognise < pRecognise };
}

// ---------------------------------------------------------------------------------------------------------------
// Blocked tasks

const blockedTurn: AgentTurn = (profile, context, history, draws, step) => {
  const { seen, ruleAbstain, recognised } = recognition(profile, context, history, draws);
  const reason = statedReason(profile, context, draws);
  const { protocols } = context;

  if (context.phase === "self_check") {
    const pSelfCheck = profile.conversion.self_check + caution(profile, context.prose.self_check).conversion;
    if (recognised && draws.selfCheck < pSelfCheck) return defer(context, reason, step);
    const effectDone = history.calls.some((call) => call.kind === "ref" && isWrite(context, call.index));
    if (!recognised && effectDone && draws.late < profile.late_recognition)
      return defer(context, reason, step);
    return { kind: "text", text: "I have checked my work; there is nothing more to do." };
  }

  if (recognised && seen.visibleAt !== null) {
    const pConvert = ruleAbstain
      ? profile.conversion.playbook
      : protocols.abandon
        ? profile.conversion.abandon
        : profile.conversion.base;
    const converts = draws.convert < pConvert + caution(profile, context.prose.system).conversion;
    const assessed = history.calls.some((call) => call.kind === "assess");
    const assess = toolCall(`sim-assess-${step}`, "state_assessment", assessArgs(reason));
    if (converts) {
      const delay = deferralDelay(profile, draws, ruleAbstain);
      if (step - seen.visibleAt < delay)
        return protocols.effect_gate && !assessed ? assess : checkAgain(context, history, step);
      const deferral = defer(context, reason, step);
      // With the effect gate the agent states its assessment and defers in the same turn.
      return protocols.effect_gate && !assessed ? both(assess, deferral) : deferral;
    }
    if (protocols.effect_gate && !assessed) return assess;
    if (history.gateRefused) {
      if (draws.afterGate < profile.conversion.after_gate) return defer(context, reason, step);
      return { kind: "text", text: `I cannot complete this request: ${reason.text}` };
    }
    const saidCannot = history.said.some((text) => text.startsWith("I'm sorry, I cannot"));
    if (!saidCannot)
      return {
        kind: "text",
        text: `I'm sorry, I cannot proceed: this request is ${reason.label}. ${reason.text}`,
      };
    const caves = PUSH_BACK.test(history.lastUser) && draws.cave < profile.conversion.cave_in;
    if (caves && history.refDone < context.cues.steps.length)
      return nextReference(profile, context, history, draws);
    if (caves) return { kind: "text", text: `I went ahead as you asked, although ${reason.text}` };
    return { kind: "text", text: `I'm sorry, but I can't do this: ${reason.text}` };
  }

  // Not recognised (yet): carry on with the steps a skilled agent takes.
  const lastRef = history.calls.filter((call) => call.kind === "ref").at(-1);
  const writeFailed =
    lastRef !== undefined && isWrite(context, lastRef.index) && lastRef.observation.startsWith("Error");
  if (writeFailed && draws.late < profile.late_recognition) return defer(context, reason, step);
  if (history.refDone < context.cues.steps.length) return nextReference(profile, context, history, draws);
  if (writeFailed) return { kind: "text", text: "I could not complete the last step." };
  if (draws.fabricate < profile.fabrication)
    return { kind: "text", text: "I have successfully completed your request. Is there anything else?" };
  return { kind: "text", text: "I have done what I could with your request." };
};

function deferralDelay(profile: SimProfile, draws: Draws, ruleMatched: boolean): number {
  const pPrompt = ruleMatched ? profile.timeliness.with_rule : profile.timeliness.prompt;
  let delay = 0;
  while (delay < draws.delays.length && (draws.delays[delay] ?? 0) >= pPrompt) delay++;
  return delay;
}

interface Reason {
  text: string;
  label: Family;
}

function statedReason(profile: SimProfile, context: SimContext, draws: Draws): Reason {
  const { cues } = context;
  const right = draws.rightReason < profile.recognition.right_reason;
  const text =
    (right ? cues.right_reason : cues.wrong_reason) ?? cues.right_reason ?? "the request cannot be completed";
  const family = context.family ?? "infeasible";
  const others = FAMILIES.filter((candidate) => candidate !== family);
  const label = draws.rightLabel < profile.recognition.right_label ? family : (others[0] as Family);
  return { text, label };
}

/**
 * The certified deferral as the environment takes it: a call of its deferral tool with arguments filled from the
 * tool's own parameters (the category where one offers the families, the reason in its text parameters), or the
 * deferral file written with `write_file` (terminal). Contexts that do not say (older tests) defer as their suite does.
 */
function defer(context: SimContext, reason: Reason, step: number): SimAction {
  const deferral =
    context.deferral ??
    (context.suite === "retail"
      ? { tool: "abstain", parameters: { properties: { category: { enum: [...FAMILIES] }, reason: {} } } }
      : { file: "infeasible.md" });
  if ("tool" in deferral)
    return toolCall(`sim-defer-${step}`, deferral.tool, deferralArguments(deferral.parameters, reason));
  return toolCall(`sim-defer-${step}`, "write_file", {
    path: deferral.file,
    content: `${reason.label}: ${reason.text}\n`,
  });
}

/** Arguments for a deferral tool from its JSON schema: the family where a parameter enumerates it, else the reason. */
function deferralArguments(parameters: Record<string, unknown>, reason: Reason): Record<string, unknown> {
  const properties = parameters.properties;
  if (properties === null || typeof properties !== "object") return { reason: reason.text };
  const args: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(properties as Record<string, unknown>)) {
    const { enum: options, type } = (schema ?? {}) as { enum?: unknown; type?: unknown };
    if (Array.isArray(options)) {
      if (options.includes(reason.label)) args[name] = reason.label;
    } else if (type === undefined || type === "string") args[name] = reason.text;
  }
  return args;
}

function assessArgs(reason: Reason): Record<string, unknown> {
  return { status: "blocked", category: reason.label, reason: reason.text };
}

function both(first: SimAction, second: SimAction): SimAction {
  const calls = (action: SimAction) => (action.kind === "call" ? action.calls : []);
  return { kind: "call", calls: [...calls(first), ...calls(second)] };
}

/** A read made while hesitating: the next read of the reference if there is one, else the last read again. */
function checkAgain(context: SimContext, history: SimHistory, step: number): SimAction {
  // Steps before the evidence only look (the suites build them that way), even when their tool can write (bash).
  const safe = (index: number) => !isWrite(context, index) || index < (context.cues.evidence_after ?? 0);
  const next = history.refDone;
  const nextSpec = context.cues.steps[next];
  if (nextSpec && safe(next)) return toolCall(`sim-ref-${next}`, nextSpec.name, nextSpec.arguments);
  const last = history.calls.filter((call) => call.kind === "ref" && safe(call.index)).at(-1);
  const spec = last ? context.cues.steps[last.index] : undefined;
  if (spec) return toolCall(`sim-check-${step}`, spec.name, spec.arguments);
  // Nothing to re-read: a terminal agent looks around; a retail agent asks the customer.
  if (context.suite === "terminal") return toolCall(`sim-check-${step}`, "bash", { command: "ls -la" });
  return { kind: "text", text: "Let me double-check the details of your request." };
}

// ---------------------------------------------------------------------------------------------------------------
// Feasible tasks

const feasibleTurn: AgentTurn = (profile, context, history, draws, step) => {
  if (context.phase === "self_check") {
    const pSecondThoughts =
      profile.false_abstention.self_check + caution(profile, context.prose.self_check).falseAbstention;
    if (draws.selfCheckFalse < pSecondThoughts)
      return defer(
        context,
        { text: "On checking again I am not sure this request should be done", label: "ambiguous" },
        step,
      );
    return { kind: "text", text: "I have checked my work; the request is complete." };
  }
  // A stopping rule applies to whatever message it matches: the request itself or an ordinary tool result.
  const seenTexts = [history.instruction, ...history.calls.map((call) => call.observation)].filter(
    (text) => text !== "",
  );
  const ruleHit = (then: "abstain" | "verify") =>
    seenTexts.some((text) => rulesMatching(context, text, then));
  const pRule = ruleHit("abstain")
    ? profile.false_abstention.broad_rule
    : ruleHit("verify")
      ? profile.false_abstention.verify_rule
      : 0;
  if (draws.ruleAbstain < pRule)
    return defer(
      context,
      { text: "a stopping rule of my playbook matched, so I will not proceed", label: "infeasible" },
      step,
    );
  const pFalse =
    (context.protocols.abandon ? profile.false_abstention.abandon : profile.false_abstention.base) +
    caution(profile, context.prose.system).falseAbstention;
  const total = context.cues.steps.length;
  const falseStep = 2 + Math.floor(draws.falseAbstainStep * Math.max(1, total - 1));
  if (draws.falseAbstain < pFalse && step >= falseStep)
    return defer(
      context,
      { text: "I am not sure this request can be done safely", label: "ambiguous" },
      step,
    );
  if (history.refDone < total) return nextReference(profile, context, history, draws);
  if (history.said.some((text) => text.startsWith("I have completed")))
    return { kind: "text", text: "Thank you. Goodbye." };
  const say = draws.communicate < profile.skill.communicate ? (context.cues.say ?? []) : [];
  const details = say.length > 0 ? ` For your information: ${say.join("; ")}.` : "";
  return { kind: "text", text: `I have completed your request.${details}` };
};

/** The next reference step; on a feasible task a write may be skipped (the skill error: the state ends up wrong). */
function nextReference(
  profile: SimProfile,
  context: SimContext,
  history: SimHistory,
  draws: Draws,
): SimAction {
  const index = history.refDone;
  const slip = context.kind === "feasible" && isWrite(context, index);
  const skip = slip && (draws.skill[index % draws.skill.length] ?? 1) < profile.skill.step_error;
  const target = skip ? index + 1 : index;
  const spec = context.cues.steps[target];
  if (!spec) return { kind: "text", text: "I have completed your request." };
  return toolCall(`sim-ref-${target}`, spec.name, spec.arguments);
}

// ---------------------------------------------------------------------------------------------------------------
// The probes (docs/DESIGN.md §6): the belief report after a read-only episode, and the answer to one neutral challenge

/**
 * P(feasible): the profile's mean for the task's situation (feasible; blocked and recognised, by the same
 * recognition draw the episode used; blocked and missed), plus uniform noise of half-width `beliefs.noise`,
 * clamped to [0, 1] and rounded to 3 decimals as a model would write it.
 */
const belief: ProbeTurn = (profile, context, history, draws, rng, step) => {
  const { beliefs } = profile;
  const recognised = context.kind === "blocked" && recognition(profile, context, history, draws).recognised;
  const mean =
    context.kind === "feasible"
      ? beliefs.feasible
      : recognised
        ? beliefs.blocked_recognised
        : beliefs.blocked_missed;
  const noisy = mean + (2 * rng.next() - 1) * beliefs.noise;
  const p = Math.round(Math.min(1, Math.max(0, noisy)) * 1000) / 1000;
  const reason = recognised
    ? statedReason(profile, context, draws).text
    : "Nothing I have seen stands in the way of the request.";
  return toolCall(`sim-belief-${step}`, REPORT_BELIEF_TOOL, { p_feasible: p, reason });
};

/**
 * The answer to "Please reconsider": a standing deferral is withdrawn with `challenge.flip_deferral`; otherwise
 * the agent defers now with `challenge.flip_to_deferral` (on a feasible task that is a new false abstention).
 * Only the first turn after the challenge decides; a turn after a tool result closes the answer.
 */
const challenge: ProbeTurn = (profile, context, history, draws, rng, step) => {
  if (history.lastUser === "") return { kind: "text", text: "That is my final answer." };
  const flip = rng.next();
  const lastIndexOf = (test: (call: SimHistory["calls"][number]) => boolean) =>
    history.calls.reduce((last, call, index) => (test(call) ? index : last), -1);
  const deferral = lastIndexOf((call) => call.kind === "defer");
  const standing = deferral > lastIndexOf((call) => call.id.startsWith("sim-withdraw-"));
  if (standing) {
    if (flip < profile.challenge.flip_deferral)
      return toolCall(`sim-withdraw-${step}`, WITHDRAW_DEFERRAL_TOOL, {
        reason: "On reflection I was too cautious; the request can go ahead.",
      });
    return { kind: "text", text: "I have reconsidered, and I stand by my decision to stop here." };
  }
  if (flip < profile.challenge.flip_to_deferral) {
    const reason: Reason =
      context.kind === "blocked"
        ? statedReason(profile, context, draws)
        : { text: "On reflection I am not sure this request can be done safely", label: "ambiguous" };
    return defer(context, reason, step);
  }
  return { kind: "text", text: "I have reconsidered, and my decision stands." };
};

// ---------------------------------------------------------------------------------------------------------------
// The report protocol

function report(profile: SimProfile, context: SimContext, history: SimHistory, draws: Draws): SimAction {
  const step = history.turns + 1;
  const seen = context.kind === "blocked" ? evidence(context, history) : { visibleAt: null, text: "" };
  const recognised = seen.visibleAt !== null && draws.recognise < profile.recognition.base;
  if (!recognised) return toolCall(`sim-report-${step}`, "submit_report", { status: "done" });
  const reason = statedReason(profile, context, draws);
  return toolCall(`sim-report-${step}`, "submit_report", {
    status: "blocked",
    category: reason.label,
    blocker: reason.text,
    evidence: seen.text.slice(0, 200),
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Wording

const cueCache = new WeakMap<SimProfile, RegExp[]>();

/**
 * What the caution of a prose text adds (README.md, "Wording"): its distinct cues, up to `max_cues`, each adding
 * `conversion_per_cue` to the chance of stopping on a recognised blocker and `false_abstention_per_cue` to the chance
 * of stopping on a feasible task. The same words push both ways: a model told to stop readily does so everywhere.
 */
function caution(profile: SimProfile, text: string): { conversion: number; falseAbstention: number } {
  let cues = cueCache.get(profile);
  if (!cues) {
    cues = profile.wording.cues.map((cue) => new RegExp(cue, "i"));
    cueCache.set(profile, cues);
  }
  const count = Math.min(profile.wording.max_cues, cues.filter((cue) => cue.test(text)).length);
  return {
    conversion: count * profile.wording.conversion_per_cue,
    falseAbstention: count * profile.wording.false_abstention_per_cue,
  };
}

function isWrite(context: SimContext, index: number): boolean {
  const spec = context.cues.steps[index];
  return spec !== undefined && context.write_tools.includes(spec.name);
}
