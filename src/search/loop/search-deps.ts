import type { Task } from "../../domain";
import type { ImageSource } from "../../envs";
import type { RolloutExecutor } from "../../eval";
import type { ModelUsageRow, PriceTable, Semaphore } from "../../models";
import type { ChatModel } from "../../models/types";
import type { Judge } from "../../scoring";
import type { RunStore } from "../../store";
import type { SearchConfig } from "../config/config-schema";
import type { BudgetGate } from "../plan/budget";
import type { ProposerRole } from "../proposers/proposer";
import type { ProposerInput } from "../proposers/proposer-input";
import type { SearchEvents } from "./search-events";

/** What every step of the search works with: the run's config, store, tasks, models and budget gate. */
export interface SearchDeps {
  config: SearchConfig;
  runId: string;
  runDir: string;
  store: RunStore;
  /** The seed harness directory (new runs); resumed runs read the seed from the run's git repository. */
  seedHarnessDir: string;
  tasks: { search: Task[]; heldout: () => Task[]; independent: () => Task[] };
  model: ChatModel;
  metaModel: ChatModel | null;
  /** The models of the proposer's own roles (convolve's reflector and curator) the config names. */
  roleModels?: Partial<Record<ProposerRole, ChatModel>>;
  /** A proposer from a module (`meta_model: ./my-proposer.mjs`, src/plugins); used instead of operators or a model. */
  pluginProposer?: PluginProposer;
  judge: Judge;
  customerModel?: ChatModel;
  prices?: PriceTable;
  /** Where rollouts run (`run --workers`: the workers' queue); default in this process on `model`. */
  executor?: RolloutExecutor;
  /**
   * Where a terminal task that names a prebuilt image gets it, for the rollouts this process runs: the config's
   * `image_source`, else the user's default (workers take their own). Default `auto`.
   */
  imageSource?: ImageSource;
  /** Network for the tasks that ask for it (allow_internet): the user's explicit grant, as data (default none). */
  allowInternet?: boolean;
  /**
   * Every role's usage in this session so far, per model (the meters of the run's models, and with workers what
   * their rollouts used): stored per session, counted by `budget.max_usd`. Absent (tests): usage is not stored.
   */
  usage?: () => ModelUsageRow[];
  events?: SearchEvents;
  /** Cancels the run: in-flight rollouts finish and are stored, nothing new starts (the library's startRun). */
  signal?: AbortSignal;
  /** Set by runSearch: every rollout of the run passes it before starting. */
  gate?: BudgetGate;
  /** Set by runSearch: the run's `concurrency` rollout slots, shared by every evaluation running at the time. */
  slots?: Semaphore;
  /** Tests capture what the proposer receives. */
  onProposerInput?: (input: ProposerInput) => void;
}

import type { PluginProposer } from "../proposers/proposer-context";

export type { PluginProposer, ProposerContext } from "../proposers/proposer-context";
