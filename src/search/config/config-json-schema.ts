import { z } from "zod";
import { searchConfigFileSchema } from "./config-schema";

/** The JSON Schema of the search config, for editors (yaml-language-server, VS Code). */
export function searchConfigJsonSchema(): string {
  const schema = z.toJSONSchema(searchConfigFileSchema, { io: "input", target: "draft-2020-12" });
  return `${JSON.stringify({ ...schema, title: "hsearch search config" }, null, 2)}\n`;
}
