/**
 * Summarises a V8 CPU profile (`node --cpu-prof`, or `bench/search-wall.ts --profile DIR`): self time by function and
 * by file, and with `--callers REGEX` the call paths into the matching functions with their inclusive time.
 *
 *   npx tsx bench/profile-summary.ts FILE.cpuprofile [--top 40] [--callers 'canonicalJson'] [--depth 6]
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    top: { type: "string", default: "40" },
    callers: { type: "string" },
    depth: { type: "string", default: "6" },
  },
});
const file = positionals[0];
if (!file) {
  console.error("usage: profile-summary.ts FILE.cpuprofile [--top N] [--callers REGEX] [--depth N]");
  process.exit(2);
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

const profile = JSON.parse(readFileSync(file, "utf8")) as Profile;
const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
const parentOf = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
const selfMicros = new Map<number, number>();
profile.samples.forEach((id, i) => {
  selfMicros.set(id, (selfMicros.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
});
const totalMicros = [...selfMicros.values()].reduce((a, b) => a + b, 0);

const shortUrl = (url: string) =>
  url.replace(/.*\/(node_modules\/[^/]+|src|bench|test)\//, "$1/").replace(/^node:internal\//, "");
const nameOf = (node: ProfileNode) =>
  `${node.callFrame.functionName || "(anonymous)"} ${shortUrl(node.callFrame.url)}:${node.callFrame.lineNumber + 1}`;
const seconds = (micros: number) => `${(micros / 1e6).toFixed(2).padStart(8)} s`;
const share = (micros: number) => `${((100 * micros) / totalMicros).toFixed(1).padStart(5)} %`;
const add = (map: Map<string, number>, key: string, micros: number) =>
  map.set(key, (map.get(key) ?? 0) + micros);
const printTop = (map: Map<string, number>, top: number) => {
  for (const [key, micros] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top))
    console.log(`${seconds(micros)} ${share(micros)}  ${key}`);
};

const byFunction = new Map<string, number>();
const byFile = new Map<string, number>();
for (const [id, micros] of selfMicros) {
  const node = nodes.get(id) as ProfileNode;
  add(byFunction, nameOf(node), micros);
  add(byFile, shortUrl(node.callFrame.url) || node.callFrame.functionName, micros);
}
const top = Number(values.top);
console.log(
  `${(totalMicros / 1e6).toFixed(1)} s sampled over ${((profile.endTime - profile.startTime) / 1e6).toFixed(1)} s`,
);
console.log("-- self time by function");
printTop(byFunction, top);
console.log("-- self time by file");
printTop(byFile, Math.min(top, 25));

if (values.callers) {
  const target = new RegExp(values.callers);
  const inclusive = new Map<number, number>();
  const inclusiveOf = (id: number): number => {
    const known = inclusive.get(id);
    if (known !== undefined) return known;
    const node = nodes.get(id) as ProfileNode;
    const micros = (node.children ?? []).reduce(
      (sum, child) => sum + inclusiveOf(child),
      selfMicros.get(id) ?? 0,
    );
    inclusive.set(id, micros);
    return micros;
  };
  const matches = (id: number | undefined) =>
    id !== undefined && target.test(nameOf(nodes.get(id) as ProfileNode));
  const paths = new Map<string, number>();
  for (const node of profile.nodes) {
    if (!matches(node.id)) continue;
    const chain: string[] = [];
    let outer = parentOf.get(node.id);
    let nested = false;
    while (outer !== undefined) {
      // A match inside another match is counted in the outer one.
      if (matches(outer)) nested = true;
      const name = nameOf(nodes.get(outer) as ProfileNode);
      if (
        chain.length < Number(values.depth) &&
        !/^\(anonymous\) :0|^\(root\)|processTicksAndRejections/.test(name)
      )
        chain.push(name);
      outer = parentOf.get(outer);
    }
    if (!nested) add(paths, `${nameOf(node)}  <=  ${chain.join(" < ")}`, inclusiveOf(node.id));
  }
  console.log(`-- callers of /${values.callers}/ (inclusive time)`);
  printTop(paths, top);
}
