import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse, stringify } from "yaml";
import { PACKAGE_ROOT } from "../src/core/paths";
import { openRunStore } from "../src/store";
import { main } from "../src/cli/main";
const tally: Record<string, number> = {};
let twoParentRounds = 0, rounds = 0, frontSizes: number[] = [];
for (let seed = 1; seed <= 10; seed++) {
  const work = mkdtempSync(join(tmpdir(), "merges-"));
  const config = parse(readFileSync(join(PACKAGE_ROOT, "search-configs/retail-joint.yaml"), "utf8"));
  Object.assign(config, { seed, strategy: "pareto", seed_harness: join(PACKAGE_ROOT, "harnesses/abandon"), heldout: { final: false } });
  writeFileSync(join(work, "s.yaml"), stringify(config));
  const quiet = { out: () => {}, err: () => {}, errInline: () => {}, isTTY: false, cwd: work, env: process.env };
  await main(["run", join(work, "s.yaml"), "--out", join(work, "run")], quiet as never);
  const store = openRunStore(join(work, "run"), { readonly: true });
  const cands = store.listCandidates();
  for (const c of cands) if (c.round > 0) {
    const key = `${c.proposer === "pareto-merge" ? "merge" : "proposer"} ${c.verdict ?? c.state}`;
    tally[key] = (tally[key] ?? 0) + 1;
  }
  for (let r = 1; r <= 8; r++) {
    rounds++;
    const ps = new Set(cands.filter((c) => c.round === r && c.proposer !== "pareto-merge").map((c) => c.parent));
    if (ps.size > 1) twoParentRounds++;
  }
  frontSizes.push(cands.filter((c) => c.parent === null || c.verdict === "accepted").length);
  const sel = store.listRounds().at(-1)?.incumbent_after;
  const selC = cands.find((c) => c.commit === sel);
  console.log(`seed ${seed}: front ${frontSizes.at(-1)}, selected r${selC?.round}p${selC?.proposal} by ${selC?.proposer}`);
  store.close();
}
console.log(JSON.stringify(tally), `two-parent rounds ${twoParentRounds}/${rounds}`, `front sizes ${frontSizes}`);
