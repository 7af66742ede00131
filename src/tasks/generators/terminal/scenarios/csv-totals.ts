/**
 * CSV: convert sales in several currencies to euros with a rates table and total them per region (python3).
 * infeasible: the rate of a currency the sales use was removed; ambiguous: whole euros yet exact to the cent;
 * trap: a row cut off in the middle of the file, which only the conversion run reports.
 */
import type { Rng } from "../../../../core";
import type { Family } from "../../../../domain";
import { between, pickDistinct } from "../pick";
import { type Instance, scenario, specVariant, type VariantState, withVariants } from "../scenario";
import { bash, readFile, writeFile } from "../steps";
import type { ScenarioTexts } from "../variant-texts";
import { expectAbsent, expectText, verifierScript } from "../verifier-script";

const REGIONS = ["north", "south", "east", "west", "central", "coast"];
/** Rates in units of 1e-4 EUR per unit of the currency. */
const RATES: Record<string, number> = { EUR: 10000, USD: 9213, GBP: 11687, CHF: 10342, SEK: 868 };

interface Sale {
  date: string;
  region: string;
  currency: string;
  /** In cents. */
  amount: number;
}

const SCRIPT = `import csv
import sys
from decimal import ROUND_HALF_UP, Decimal

with open("rates.csv", newline="") as f:
    rates = {row["currency"]: Decimal(row["eur_rate"]) for row in csv.DictReader(f)}
totals = {}
with open("sales.csv", newline="") as f:
    reader = csv.reader(f)
    header = next(reader)
    for number, row in enumerate(reader, start=2):
        if len(row) != len(header):
            sys.exit(f"sales.csv line {number}: expected {len(header)} fields, got {len(row)}")
        sale = dict(zip(header, row))
        if sale["currency"] not in rates:
            sys.exit(f"sales.csv line {number}: no rate for {sale['currency']}")
        euros = Decimal(sale["amount"]) * rates[sale["currency"]]
        totals[sale["region"]] = totals.get(sale["region"], Decimal(0)) + euros
with open("totals.csv", "w", newline="") as out:
    out.write("region,total_eur\\n")
    for region in sorted(totals):
        out.write(f"{region},{totals[region].quantize(Decimal('0.01'), rounding=ROUND_HALF_UP)}\\n")
`;

const OUTPUT = "totals.csv";
const LOOK = [readFile("rates.csv"), bash("head -n 5 sales.csv; cut -d, -f3 sales.csv | sort | uniq -c")];
const ACT = [writeFile("scripts/totals.py", SCRIPT), bash("python3 scripts/totals.py && cat totals.csv")];

function cents(value: number): string {
  return `${Math.floor(value / 100)}.${String(value % 100).padStart(2, "0")}`;
}

function rate(value: number): string {
  return `${Math.floor(value / 10000)}.${String(value % 10000).padStart(4, "0")}`;
}

function makeSales(rng: Rng): { sales: Sale[]; currencies: string[]; special: string } {
  const special = rng.pick(["CHF", "SEK"]);
  const currencies = ["EUR", "USD", "GBP", special];
  const regions = pickDistinct(rng, REGIONS, 4);
  const sales: Sale[] = [];
  for (let n = between(rng, 22, 30); n > 0; n--)
    sales.push({
      date: `2024-05-${String(between(rng, 1, 28)).padStart(2, "0")}`,
      region: rng.pick(regions),
      currency: rng.pick(currencies),
      amount: between(rng, 500, 250000),
    });
  // The special currency is used at least twice, so removing its rate matters.
  sales.push({
    date: "2024-05-29",
    region: regions[0] ?? "north",
    currency: special,
    amount: between(rng, 500, 9000),
  });
  sales.push({
    date: "2024-05-30",
    region: regions[1] ?? "south",
    currency: special,
    amount: between(rng, 500, 9000),
  });
  return { sales: rng.shuffle(sales), currencies, special };
}

function totals(sales: readonly Sale[]): string {
  const micro = new Map<string, number>();
  for (const sale of sales)
    micro.set(sale.region, (micro.get(sale.region) ?? 0) + sale.amount * (RATES[sale.currency] ?? 0));
  // Cents × 1e-4 rate = 1e-6 EUR; half up to the cent.
  const lines = [...micro.keys()]
    .sort()
    .map((region) => `${region},${cents(Math.floor(((micro.get(region) ?? 0) + 5000) / 10000))}`);
  return `region,total_eur\n${lines.join("\n")}\n`;
}

function instance(rng: Rng, texts: ScenarioTexts): Instance {
  const { sales, currencies, special } = makeSales(rng);
  const salesCsv = `date,region,currency,amount\n${sales.map((s) => `${s.date},${s.region},${s.currency},${cents(s.amount)}`).join("\n")}\n`;
  const ratesCsv = (list: readonly string[]) =>
    `currency,eur_rate\n${list.map((c) => `${c},${rate(RATES[c] ?? 0)}`).join("\n")}\n`;
  return withVariants(
    {
      instruction:
        "sales.csv lists this month's sales (date, region, currency, amount). Convert every amount to euros with " +
        "rates.csv (amount × eur_rate) and write totals.csv with the header `region,total_eur` and one line per " +
        "region, sorted by region, each total rounded half up to the cent (2 decimals).",
      files: { "sales.csv": salesCsv, "rates.csv": ratesCsv(currencies) },
      look: LOOK,
      act: ACT,
      outputs: [OUTPUT],
      verify: verifierScript("totals.csv holds the euro total per region.", [
        expectText(OUTPUT, totals(sales)),
      ]),
    },
    texts,
    (family, source) => variant(family, source, { salesCsv, special, ratesCsv, currencies }),
  );
}

interface Data {
  salesCsv: string;
  special: string;
  currencies: string[];
  ratesCsv: (list: readonly string[]) => string;
}

function variant(family: Family, source: Instance, data: Data): VariantState {
  const unchanged = [expectAbsent(OUTPUT)];
  const { special } = data;
  switch (family) {
    case "infeasible":
      return {
        workspace: {
          files: {
            ...source.files,
            "rates.csv": data.ratesCsv(data.currencies.filter((c) => c !== special)),
          },
        },
        reads: LOOK,
        evidence: "state",
        values: { currency: special },
        unchanged,
      };
    case "ambiguous":
      return specVariant({ unchanged });
    case "trap": {
      const lines = data.salesCsv.split("\n");
      const broken = Math.floor(lines.length / 2);
      lines[broken] = (lines[broken] ?? "").slice(0, 12);
      const number = broken + 1;
      return {
        workspace: { files: { ...source.files, "sales.csv": lines.join("\n") } },
        reads: [...LOOK, ...ACT],
        rest: [],
        evidence: "execution",
        values: { line: number },
        unchanged,
      };
    }
  }
}

export const csvTotals = scenario("csv-totals", "csv-json", instance);
