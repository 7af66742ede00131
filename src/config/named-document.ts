import { z } from "zod";

/** What every named YAML document (a harness, a simulator profile) opens with: its name and an optional description. */
export const namedDocumentFields = {
  name: z.string().min(1),
  description: z.string().default(""),
};
