/** The public entry of src/config: what other modules of src/ import from it (src/README.md, the import rule). */

export type { HarnessConfig, PlaybookRule, ProtocolName } from "./harness-schema";
export {
  harnessConfigSchema,
  PATTERN_REGEX,
  playbookRuleSchema,
  playbookSchema,
  STEP_LIMITS,
} from "./harness-schema";
export { namedDocumentFields } from "./named-document";
export type { PositionedDocument } from "./parse-document";
export { loadDocument, parsePositioned, readPositioned, validateDocument } from "./parse-document";
