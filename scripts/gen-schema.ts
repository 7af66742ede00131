// Writes schemas/search-config.schema.json from the zod schema (`npm run schema`); a test checks it is current.
import { writeFileSync } from "node:fs";
import { searchConfigJsonSchema } from "../src/search/config/config-json-schema";

const target = new URL("../schemas/search-config.schema.json", import.meta.url);
writeFileSync(target, searchConfigJsonSchema());
console.log(`wrote ${target.pathname}`);
