import { z } from "zod";
import { callHook, HsearchError } from "../core";
import { builtInProposerNames } from "../search";
import type { PluginProposer, Proposal } from "../search/types";
import type { ProposerDefinition } from "./define";
import { checkedExport, importDefault, moduleHash, type PluginPlace } from "./import-module";

const definitionShape = z.object({
  name: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, "a proposer name is letters, digits, '.', '_' or '-'")
    .refine((name) => !builtInProposerNames().includes(name), {
      error: (issue) => `${String(issue.input)} is a built-in proposer: choose another name`,
    }),
  propose: z.custom<(...args: never[]) => unknown>((value) => typeof value === "function", "a function"),
});

/** A proposal as a plug-in returns it (define.ts ProposedEdit): checked before it reaches the admission code. */
const editShape = z
  .object({
    files: z.record(z.string(), z.string().nullable()),
    rationale: z.string().trim().min(1),
    operator: z.string().min(1).optional(),
  })
  .strict();

export interface LoadedProposer {
  path: string;
  sha256: string;
  proposer: PluginProposer;
}

/**
 * Imports a proposer module and checks its default export. Its proposals are checked each round (editShape); a
 * reply of the wrong shape fails the run with bad input naming the module, since a bug in the researcher's code is
 * not a model's bad reply to be retried.
 */
export async function loadProposerModule(
  path: string,
  place: PluginPlace,
  expected?: string,
): Promise<LoadedProposer> {
  const sha256 = moduleHash(path, place, expected);
  const exported = await importDefault(path, sha256, place);
  const definition = checkedExport<ProposerDefinition>(definitionShape, exported, place, path, "proposer");
  const name = `module:${definition.name}`;
  return {
    path,
    sha256,
    proposer: {
      name,
      async propose(input, context) {
        // A copy: the module may change what it is given without changing what the run holds.
        const given = await callHook(
          { module: path, field: "meta_model", ...(place.file ? { file: place.file } : {}) },
          `propose() in round ${context.round}`,
          () => definition.propose(structuredClone(input), context),
        );
        const parsed = z.array(editShape).safeParse(given);
        if (!parsed.success) {
          const issue = parsed.error.issues[0];
          throw new HsearchError(
            "bad_input",
            `meta_model: module ${path}: propose() returned edits that are not [{files, rationale}]: ${issue?.path.join(".") || "(the reply)"}: ${issue?.message ?? "invalid"}`,
            { field: "meta_model" },
          );
        }
        return parsed.data.slice(0, context.count).map(
          (edit): Proposal => ({
            files: edit.files,
            rationale: edit.rationale,
            operator: edit.operator ?? definition.name,
          }),
        );
      },
    },
  };
}
