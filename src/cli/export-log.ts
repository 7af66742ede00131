import { mkdir, stat, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import {
  EXPORT_FORMATS,
  type ExportFormat,
  exportAtifTrajectories,
  exportInspectLog,
  trajectoryFileAsAtif,
} from "../api";
import { defineCommand } from "./command-list";
import { usageError } from "./usage-error";

export const register = defineCommand("export-log", {
  options: (yargs) =>
    yargs
      .positional("source", {
        type: "string",
        demandOption: true,
        describe: "run id or directory, or (with --format atif) an hsearch trajectory file",
      })
      .option("format", {
        type: "string",
        choices: [...EXPORT_FORMATS],
        default: "inspect",
        describe: "inspect: one eval log JSON; atif: one ATIF file per episode",
      })
      .option("candidate", {
        type: "string",
        describe:
          "the candidate whose episodes to write (default: an evaluation's harness, a search's selected)",
      })
      .option("out", {
        type: "string",
        demandOption: true,
        describe: "file to write (inspect, or atif of a trajectory file) or directory (atif of a run)",
      }),
  run: async (argv, io) => {
    const format = argv.format as ExportFormat;
    const source = resolve(io.cwd, argv.source);
    const out = resolve(io.cwd, argv.out);
    const isFile = (await stat(source).catch(() => undefined))?.isFile() ?? false;
    if (isFile && format !== "atif")
      throw usageError(`${argv.source} is a file: a trajectory file exports with --format atif`);
    if (isFile) {
      await writeJson(out, await trajectoryFileAsAtif(source));
      io.out(`wrote ${out}`);
      return;
    }
    const options = { cwd: io.cwd, ...(argv.candidate !== undefined ? { candidate: argv.candidate } : {}) };
    if (format === "inspect") {
      const { log, samples, heldOut } = await exportInspectLog(argv.source, options);
      await writeJson(out, log);
      io.out(`wrote ${out}: ${samples} samples${heldOutNote(heldOut)}`);
      return;
    }
    const { trajectories, heldOut } = await exportAtifTrajectories(argv.source, options);
    await mkdir(out, { recursive: true });
    for (const { name, atif } of trajectories) await writeJson(join(out, `${name}.json`), atif);
    io.out(`wrote ${trajectories.length} ATIF trajectories to ${out}${heldOutNote(heldOut)}`);
  },
});

async function writeJson(file: string, value: unknown): Promise<void> {
  await writeFile(file, `${JSON.stringify(value, null, 2)}\n`);
}

function heldOutNote(count: number): string {
  return count > 0 ? ` (${count} held-out episodes left out)` : "";
}
