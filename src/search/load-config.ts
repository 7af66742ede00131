import { readPositioned, validateDocument } from "../config/parse-document";
import { type SearchConfig, searchConfigSchema } from "./config-schema";

export function loadSearchConfig(file: string): SearchConfig {
  return validateDocument(searchConfigSchema, readPositioned(file));
}
