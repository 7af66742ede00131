import type { Rng } from "../../core";
import type { ObjectiveName } from "../../scoring";
import type { Proposal } from "./proposal";
import type { ProposerInput } from "./proposer-input-types";

// Apart from search-deps.ts (which holds the run's store) because the library exports these for proposer modules:
// their declarations must reach no store or database type (test/api/package.e2e.test.ts).

/** What a plug-in proposer is given besides the input: how many proposals are wanted and the seeded draws. */
export interface ProposerContext {
  /** The number of proposals wanted (more are cut, fewer are allowed). */
  count: number;
  round: number;
  objective: ObjectiveName;
  /** The run's seed. */
  seed: number;
  /** Seeded by the run's seed and the round (and parent): the same run draws the same numbers, resumed or not. */
  rng: Rng;
}

/** A proposer from a module (src/plugins/proposer-plugin.ts): its proposals are admitted like the built-ins'. */
export interface PluginProposer {
  /** `module:<name>`: the proposer of its candidates in status and commit trailers. */
  name: string;
  propose(input: ProposerInput, context: ProposerContext): Promise<Proposal[]>;
}
