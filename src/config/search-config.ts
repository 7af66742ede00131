import { readPositioned, validateDocument } from "./parse-document";
import { type SearchConfig, searchConfigSchema } from "./search-config-schema";

export function loadSearchConfig(file: string): SearchConfig {
  return validateDocument(searchConfigSchema, readPositioned(file));
}
