/**
 * Commit messages of the harness repository: the rationale, a blank line, then `Hsearch-*` git trailers. Pure, so
 * the format is tested without git.
 */
import { badInput } from "../core";

export interface HsearchTrailers {
  run: string;
  round: number;
  proposal: number;
  proposer: string;
  /** More trailers, by full name (e.g. `Hsearch-Operator`). */
  extra?: Record<string, string>;
}

const TRAILER_NAME = /^[A-Za-z][A-Za-z0-9-]*$/;

function trailerLine(name: string, value: string | number): string {
  const text = String(value);
  if (!TRAILER_NAME.test(name)) throw badInput(`bad trailer name '${name}'`, { field: name });
  if (text.trim().length === 0 || /[\r\n]/.test(text)) {
    throw badInput(`trailer ${name} must be one non-empty line, got ${JSON.stringify(text)}`, {
      field: name,
    });
  }
  return `${name}: ${text.trim()}`;
}

export function trailerLines(trailers: HsearchTrailers): string[] {
  return [
    trailerLine("Hsearch-Run", trailers.run),
    trailerLine("Hsearch-Round", trailers.round),
    trailerLine("Hsearch-Proposal", trailers.proposal),
    trailerLine("Hsearch-Proposer", trailers.proposer),
    ...Object.entries(trailers.extra ?? {})
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([name, value]) => trailerLine(name, value)),
  ];
}

/** `rationale\n\nHsearch-Run: …\n…\n`, line endings normalised so the same rationale gives the same sha. */
export function composeCommitMessage(rationale: string, trailers: HsearchTrailers): string {
  const body = rationale.replace(/\r\n?/g, "\n").trim();
  if (body.length === 0) throw badInput("a proposal needs a non-empty rationale", { field: "rationale" });
  return `${body}\n\n${trailerLines(trailers).join("\n")}\n`;
}

export interface ParsedCommitMessage {
  rationale: string;
  trailers: Record<string, string>;
}

/** Splits a message written by `composeCommitMessage` back into rationale and trailers (last paragraph). */
export function parseCommitMessage(message: string): ParsedCommitMessage {
  const text = message.replace(/\r\n?/g, "\n").trimEnd();
  const split = text.lastIndexOf("\n\n");
  const lastParagraph = split < 0 ? text : text.slice(split + 2);
  const lines = lastParagraph.split("\n");
  const isTrailerBlock = lines.every((line) => /^[A-Za-z][A-Za-z0-9-]*: /.test(line));
  if (!isTrailerBlock || split < 0) return { rationale: text, trailers: {} };
  const trailers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(": ");
    trailers[line.slice(0, colon)] = line.slice(colon + 2);
  }
  return { rationale: text.slice(0, split), trailers };
}
