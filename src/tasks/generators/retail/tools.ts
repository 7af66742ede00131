/**
 * Retail tool names as the task importers and generators need them, taken from the environment's own tool table so
 * the two can never disagree (the table is plain data: using it loads no database).
 */
import { RETAIL_TOOL_BY_NAME, RETAIL_WRITE_TOOLS } from "../../../envs";

export const RETAIL_TOOL_NAMES: ReadonlySet<string> = new Set(RETAIL_TOOL_BY_NAME.keys());

export function isRetailWrite(name: string): boolean {
  return RETAIL_WRITE_TOOLS.has(name);
}
