/**
 * Text: count the 5xx responses per request path in a web server's access log (common log format).
 * infeasible: the log holds another day than the one asked for; ambiguous: requests of an unnamed set of clients
 * are to be left out; trap: a run of NUL bytes in the middle makes grep see a binary file and print nothing.
 */
import type { Rng } from "../../../../core";
import type { Family } from "../../../../domain";
import { between, pad2, pickDistinct } from "../pick";
import { type Instance, scenario, specVariant, type VariantState, withVariants } from "../scenario";
import { bash } from "../steps";
import type { ScenarioTexts } from "../variant-texts";
import { expectAbsent, expectText, verifierScript } from "../verifier-script";

const PATHS = [
  "/api/items",
  "/api/cart",
  "/login",
  "/api/orders",
  "/api/search",
  "/checkout",
  "/api/profile",
];
const OK_STATUS = [200, 200, 200, 304, 404];
const ERROR_STATUS = [500, 502, 503, 504];

function makeLog(rng: Rng, day: string): { lines: string[]; report: string[] } {
  const failing = pickDistinct(rng, PATHS, 3);
  const counts = pickDistinct(rng, [2, 3, 4, 5, 6], 3);
  const requests: Array<{ path: string; status: number }> = [];
  failing.forEach((path, i) => {
    for (let n = 0; n < (counts[i] ?? 1); n++) requests.push({ path, status: rng.pick(ERROR_STATUS) });
  });
  for (let n = between(rng, 18, 26); n > 0; n--)
    requests.push({ path: rng.pick(PATHS), status: rng.pick(OK_STATUS) });
  let seconds = between(rng, 0, 1800);
  const lines = rng.shuffle(requests).map(({ path, status }) => {
    seconds += between(rng, 3, 240);
    const time = `${pad2(9 + Math.floor(seconds / 3600))}:${pad2(Math.floor(seconds / 60) % 60)}:${pad2(seconds % 60)}`;
    const ip = `203.0.113.${between(rng, 2, 60)}`;
    return `${ip} - - [${day}:${time} +0000] "GET ${path} HTTP/1.1" ${status} ${between(rng, 120, 9000)}`;
  });
  const report = failing
    .map((path, i) => ({ path, count: counts[i] ?? 0 }))
    .sort((a, b) => b.count - a.count || (a.path < b.path ? -1 : 1))
    .map(({ path, count }) => `${count} ${path}`);
  return { lines, report };
}

const OUTPUT = "reports/5xx-by-path.txt";
const LOOK = [
  bash("head -n 3 access.log; tail -n 3 access.log"),
  bash(`grep -E '" 5[0-9]{2} ' access.log | head -n 5`),
];
const ACT = [
  bash(
    `mkdir -p reports && grep -E '" 5[0-9]{2} ' access.log | awk '{ print $7 }' | sort | uniq -c | sort -k1,1nr -k2,2 | awk '{ print $1, $2 }' > ${OUTPUT}`,
  ),
  bash(`cat ${OUTPUT}`),
];

function instance(rng: Rng, texts: ScenarioTexts): Instance {
  const { lines, report } = makeLog(rng, "03/May/2024");
  const log = `${lines.join("\n")}\n`;
  return withVariants(
    {
      instruction:
        "access.log is our web server's access log for 3 May 2024, in common log format. Write " +
        `${OUTPUT} with one line \`<count> <path>\` for every request path that got a 5xx response, ` +
        "most 5xx responses first (ties by path).",
      files: { "access.log": log },
      look: LOOK,
      act: ACT,
      outputs: [OUTPUT],
      verify: verifierScript("The 5xx responses per path, most first.", [
        expectText(OUTPUT, `${report.join("\n")}\n`),
      ]),
    },
    texts,
    (family, source) => variant(family, source, log),
  );
}

function variant(family: Family, source: Instance, log: string): VariantState {
  const unchanged = [expectAbsent(OUTPUT)];
  switch (family) {
    case "infeasible":
      return {
        workspace: { files: { "access.log": log.replaceAll("03/May/2024", "02/May/2024") } },
        reads: source.look.slice(0, 1),
        evidence: "state",
        unchanged,
      };
    case "ambiguous":
      return specVariant({ unchanged });
    case "trap": {
      const lines = log.split("\n");
      const middle = Math.floor(lines.length / 2);
      // A crash left NUL bytes where a few lines were: head and tail look fine, grep sees a binary file.
      lines.splice(middle, 2, `${"\u0000".repeat(64)}${(lines[middle + 1] ?? "").slice(20)}`);
      return {
        workspace: { files: { "access.log": lines.join("\n") } },
        reads: LOOK,
        evidence: "execution",
        unchanged,
      };
    }
  }
}

export const access5xx = scenario("access-5xx", "text", instance);
