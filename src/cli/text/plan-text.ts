import { isAbsolute, relative } from "node:path";
import {
  DEFAULT_PILOT_TASKS,
  isModulePath,
  planRun,
  type RoleSpend,
  type RunPlan,
  type Spend,
} from "../../api";
import type { CliIO } from "../io";

/**
 * `hsearch run --plan CONFIG [--pilot [N]]`: what the search will spend, printed before its run exists — rollouts
 * and model calls per role at most and at the expected stopping point, and with `--pilot` an estimate of tokens and
 * USD from the seed harness on N search tasks with the real models (src/api/plan.ts).
 */
export async function planCommand(
  file: string,
  io: CliIO,
  options: { json: boolean; pilot?: number | undefined },
): Promise<RunPlan> {
  const plan = await planRun(file, {
    cwd: io.cwd,
    env: io.env,
    ...(options.pilot !== undefined ? { pilot: options.pilot } : {}),
    onMessage: (text) => io.err(text),
  });
  io.out(options.json ? JSON.stringify(plan, null, 2) : `${planText(plan, io.cwd).join("\n")}\n`);
  return plan;
}

const count = (value: number) => Math.round(value).toLocaleString("en-US");
const one = (value: number) => value.toLocaleString("en-US", { maximumFractionDigits: 1 });
const callCount = (value: number) => `${one(value)} call${value === 1 ? "" : "s"}`;
const usd = (value: number | null) =>
  value === null ? "USD unknown (unpriced model)" : `$${value.toFixed(4)}`;

export function planText(plan: RunPlan, cwd: string): string[] {
  const { rollouts, tasks, calls } = plan;
  const config = planConfigLine(plan);
  const lines = [
    config,
    `search rollouts: at most ${rollouts.search.max}; expected ${rollouts.search.expected}${
      rollouts.note ? ` (${rollouts.note})` : ""
    }`,
    `final evaluation rollouts: ${rollouts.final} (held-out ${tasks.heldout} + independent ${tasks.independent} tasks, for the selection and the seed)`,
    `total rollouts: at most ${rollouts.search.max + rollouts.final}; expected ${rollouts.search.expected + rollouts.final}`,
  ];
  const roles = (["agent", "customer", "judge", "proposer", "reflector", "curator"] as const).flatMap(
    (role) => {
      const planned = calls[role];
      return planned ? [{ role, planned }] : [];
    },
  );
  lines.push(
    "model calls at most (bounds, per role; a provider's retries of a failed call come on top):",
    ...roles.map(({ role, planned }) => `  ${role} ${count(planned.max)}: ${planned.bound}`),
  );
  const expected = roles.flatMap(({ role, planned }) =>
    planned.expected === null ? [] : [`${role} ${count(planned.expected)} (${planned.expectation})`],
  );
  const unknown = roles.filter((entry) => entry.planned.expected === null).map((entry) => entry.role);
  if (expected.length > 0) lines.push(`model calls expected: ${expected.join("; ")}`);
  const offline = (["customer", "judge", "proposer"] as const).filter((role) => calls[role] === null);
  const offlineRole = (role: (typeof offline)[number]) =>
    role === "proposer" && plan.offlineProposer !== null
      ? `the proposer (${isModulePath(plan.offlineProposer) ? `module ${shownPath(plan.offlineProposer, cwd)}` : plan.offlineProposer})`
      : OFFLINE[role];
  if (offline.length > 0) lines.push(`no model call for: ${offline.map(offlineRole).join(", ")}`);
  if (!plan.real) {
    lines.push(
      `every model is offline (${plan.models.agent}): nothing to pay, so no tokens or USD to estimate; how many ${unknown.join(" and ")} calls are made within the bound depends on the model`,
    );
  } else if (!plan.estimate) {
    lines.push(
      `tokens and USD: not estimated. \`hsearch run --plan ${shownPath(plan.config, cwd)} --pilot ${DEFAULT_PILOT_TASKS}\` runs the seed harness on ${DEFAULT_PILOT_TASKS} search tasks with these models (paid calls) and estimates ${unknown.length > 0 ? `the ${unknown.join(" and ")} calls, ` : ""}tokens and USD from them`,
    );
  } else lines.push(...estimateText(plan));
  lines.push(
    plan.estimate
      ? "the run itself was not started; a budget in the config stops it earlier"
      : "no model was called; a budget in the config stops the run earlier",
  );
  return lines;
}

/** The config as the user would type it here: relative below the working directory, absolute elsewhere. */
function shownPath(file: string, cwd: string): string {
  const path = relative(cwd, file);
  return path === "" || path.startsWith("..") || isAbsolute(path) ? file : path;
}

const OFFLINE = {
  customer: "the customer (scripted)",
  judge: "the judge (rules)",
  proposer: "the proposer (operators)",
} as const;

function planConfigLine(plan: RunPlan): string {
  return `plan for ${plan.name}: R0 + ${plan.rounds} rounds × ${plan.proposalsPerRound} proposals = ${plan.rollouts.candidates} candidates; ${plan.tasks.search} search tasks × ${plan.repeats} repeat${plan.repeats > 1 ? "s" : ""}; acceptance ${plan.rule}`;
}

function spendText(spend: Spend): string {
  return `${callCount(spend.calls)}, ${count(spend.input_tokens)} input / ${count(spend.output_tokens)} output tokens, ${usd(spend.usd)}`;
}

function estimateText(plan: RunPlan): string[] {
  const estimate = plan.estimate;
  if (!estimate) return [];
  const { basis } = estimate;
  const perRollout = [
    `agent ${spendText(basis.perRollout.agent)}`,
    ...(basis.perRollout.customer
      ? [`customer (per retail rollout) ${spendText(basis.perRollout.customer)}`]
      : []),
    ...(basis.perRollout.judge ? [`judge (per blocked rollout) ${spendText(basis.perRollout.judge)}`] : []),
  ];
  const roleLine = (spend: RoleSpend) =>
    (["agent", "customer", "judge", "proposer", "reflector", "curator"] as const)
      .filter((role) => spend[role].calls > 0)
      .map(
        (role) =>
          `${role} ${callCount(Math.round(spend[role].calls))}, ${count(spend[role].input_tokens + spend[role].output_tokens)} tokens, ${usd(spend[role].usd)}`,
      )
      .join("; ");
  const total = (spend: RoleSpend) =>
    `${count(spend.total.input_tokens)} input + ${count(spend.total.output_tokens)} output tokens, ${usd(spend.total.usd)}`;
  return [
    `ESTIMATE (not a bound) from a pilot of ${basis.rollouts} rollouts of the seed harness on search tasks ${basis.tasks.join(", ")}${
      basis.infraErrors > 0 ? ` (${basis.infraErrors} ended in an infrastructure error)` : ""
    }:`,
    `  measured per rollout: ${perRollout.join("; ")}`,
    ...(basis.proposer
      ? [
          `  proposer per round: ${spendText(basis.proposer.perRound)}${basis.proposer.validReply ? "" : " (no valid proposal in the pilot's replies)"}; at most per call ${count(basis.proposer.atMostPerCall.input_tokens)} input / ${count(basis.proposer.atMostPerCall.output_tokens)} output tokens — from ${basis.proposer.from}`,
        ]
      : []),
    ...(basis.roles
      ? [
          `  proposer's roles per round: ${Object.entries(basis.roles.spend)
            .map(([role, spend]) => `${role} ${spendText(spend)}`)
            .join(
              "; ",
            )}${basis.roles.proposed ? "" : " (no proposal from the pilot's round)"} — from ${basis.roles.from}; at most every call at the pilot's tokens per call`,
        ]
      : []),
    `  prices from ${basis.prices}; pilot requests cached in ${basis.cache}`,
    `  at the expected point: ${total(estimate.expected)} (${roleLine(estimate.expected)})`,
    `  at the bound of rollouts: ${total(estimate.atMost)} (${roleLine(estimate.atMost)})`,
  ];
}
