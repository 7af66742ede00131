/**
 * What a blocked variant needs to know about its feasible source: the write it will break (the first reference write
 * that succeeds on the base database — τ² gold trajectories sometimes try a failing call first), the order it touches
 * and that order's owner.
 */
import { HsearchError } from "../../../core";
import type { RetailTask, ToolCallSpec } from "../../../domain";
import { type Order, type RetailData, replayRetailActions, type User } from "../../../envs";
import { identityFromKnownInfo } from "./first-person";
import { isRetailWrite } from "./tools";

export interface SourceAnalysis {
  steps: ToolCallSpec[];
  /** Whether each step succeeds on the source's own state (τ² gold trajectories include failed look-ups). */
  succeeded: boolean[];
  /** Index into `steps` of the write a variant breaks. */
  targetIndex: number;
  target: ToolCallSpec;
  /** The order the target writes to (absent for modify_user_address). */
  order?: Order;
  /** The customer: the order's owner, or the user whose address the target changes. */
  user: User;
  /** Orders the source's writes touch, in order of first write. */
  writtenOrders: string[];
}

/** Null when the source has no write that succeeds (a refusal or transfer task cannot be made blocked). */
export function analyseSource(task: RetailTask, data: RetailData): SourceAnalysis | null {
  const steps = task.sim?.steps ?? task.reference.actions;
  const { results } = replayRetailActions(steps, task.env);
  const targetIndex = steps.findIndex(
    (step, index) => isRetailWrite(step.name) && results[index]?.ok === true,
  );
  const target = steps[targetIndex];
  if (target === undefined) return null;
  const orderId = target.arguments.order_id;
  const order = typeof orderId === "string" ? data.orders[orderId] : undefined;
  const userId = order ? order.user_id : target.arguments.user_id;
  const user = typeof userId === "string" ? data.users[userId] : undefined;
  if (user === undefined)
    throw new HsearchError("internal", `task ${task.id}: no customer for ${target.name}`);
  const writtenOrders: string[] = [];
  for (const step of steps) {
    const id = step.arguments.order_id;
    if (isRetailWrite(step.name) && typeof id === "string" && !writtenOrders.includes(id))
      writtenOrders.push(id);
  }
  const succeeded = results.map((result) => result.ok);
  return { steps, succeeded, targetIndex, target, order, user, writtenOrders };
}

const AUTH_TOOLS = new Set(["find_user_id_by_email", "find_user_id_by_name_zip"]);

/**
 * The reads an agent makes before it sees the order: the source's own successful reads (writes dropped) up to its first look at
 * the target order — or, when the source never reads it first, all its reads before the target plus that look — with
 * an authentication added when the source has none, and (for `withProfile`) the customer's profile read before the
 * order. Returns the reads (ending with get_order_details) and the source steps that follow them.
 */
export function readsUntilOrder(
  source: RetailTask,
  analysis: SourceAnalysis,
  options: { withProfile: boolean },
): { reads: ToolCallSpec[]; rest: ToolCallSpec[] } {
  const { steps, succeeded, targetIndex, order, user } = analysis;
  if (order === undefined)
    throw new HsearchError("internal", `task ${source.id}: the target write has no order`);
  const isOrderRead = (step: ToolCallSpec) =>
    step.name === "get_order_details" && step.arguments.order_id === order.order_id;
  const look = steps.slice(0, targetIndex).findIndex(isOrderRead);
  const before = look >= 0 ? steps.slice(0, look) : steps.slice(0, targetIndex);
  const rest = look >= 0 ? steps.slice(look + 1) : steps.slice(targetIndex);
  const reads = before
    .filter((step, index) => !isRetailWrite(step.name) && succeeded[index] === true)
    .map((step) => structuredClone(step));
  if (!reads.some((step) => AUTH_TOOLS.has(step.name))) reads.unshift(authenticate(source, user));
  const hasProfile = reads.some(
    (step) => step.name === "get_user_details" && step.arguments.user_id === user.user_id,
  );
  if (options.withProfile && !hasProfile) {
    const lastAuth = reads.reduce((last, step, index) => (AUTH_TOOLS.has(step.name) ? index : last), -1);
    reads.splice(lastAuth + 1, 0, { name: "get_user_details", arguments: { user_id: user.user_id } });
  }
  reads.push({ name: "get_order_details", arguments: { order_id: order.order_id } });
  return { reads, rest: rest.map((step) => structuredClone(step)) };
}

/**
 * The authentication a policy-following agent makes before acting on anything (the retail policy asks for it first,
 * even when the request already shows the blocker): the source's first successful look-up of the customer, or one
 * made up as `readsUntilOrder` does. Returns it and the source steps that follow it.
 */
export function authenticationFirst(
  source: RetailTask,
  analysis: SourceAnalysis,
): { auth: ToolCallSpec; rest: ToolCallSpec[] } {
  const { steps, succeeded, targetIndex, user } = analysis;
  const index = steps
    .slice(0, targetIndex)
    .findIndex((step, i) => AUTH_TOOLS.has(step.name) && succeeded[i] === true);
  const found = steps[index];
  if (index < 0 || found === undefined)
    return { auth: authenticate(source, user), rest: steps.map((step) => structuredClone(step)) };
  return { auth: structuredClone(found), rest: steps.slice(index + 1).map((step) => structuredClone(step)) };
}

/** By email when the customer knows it, otherwise by name and zip. */
function authenticate(source: RetailTask, user: User): ToolCallSpec {
  const known = identityFromKnownInfo(source.user?.known_info ?? "").emails.map((email) =>
    email.toLowerCase(),
  );
  if (known.includes(user.email.toLowerCase()))
    return { name: "find_user_id_by_email", arguments: { email: user.email } };
  return {
    name: "find_user_id_by_name_zip",
    arguments: { first_name: user.name.first_name, last_name: user.name.last_name, zip: user.address.zip },
  };
}
