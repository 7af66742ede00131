/** The public entry of src/domain: what other modules of src/ import from it (src/README.md, the import rule). */
export { KINDS, SUITES } from "./suites";
export type {
  AgentTask,
  Blocker,
  CustomerScenario,
  EvidenceKind,
  Family,
  Forbidden,
  HostRequirements,
  Kind,
  PluginSuiteName,
  PluginTask,
  RetailEnvSpec,
  RetailReference,
  RetailTask,
  SimCues,
  Split,
  Suite,
  SuiteName,
  Task,
  TerminalEnvSpec,
  TerminalTask,
  TerminalTimeouts,
  ToolCallSpec,
} from "./task";
export {
  FAMILIES,
  isBuiltinSuite,
  isPluginTask,
  isRetailTask,
  isTerminalTask,
  SPLITS,
  toAgentTask,
} from "./task";
export { customerScenarioSchema, pluginTaskSchema, taskSchema } from "./task-schema";
