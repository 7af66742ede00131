/** The terminal suite's scenarios, in a fixed order (the order decides which families each one gets). */
import type { Scenario } from "../scenario";
import { access5xx } from "./access-5xx";
import { csvTotals } from "./csv-totals";
import { gitRevert } from "./git-revert";
import { jsonStock } from "./json-stock";
import { logErrors } from "./log-errors";
import { makeBuild } from "./make-build";
import { permissions } from "./permissions";
import { releaseSign } from "./release-sign";
import { shellBackup } from "./shell-backup";
import { sqliteReport } from "./sqlite-report";
import { toolInstall } from "./tool-install";
import { vendorUpdate } from "./vendor-update";

export const TERMINAL_SCENARIOS: readonly Scenario[] = [
  logErrors,
  access5xx,
  csvTotals,
  jsonStock,
  gitRevert,
  sqliteReport,
  shellBackup,
  makeBuild,
  permissions,
  vendorUpdate,
  toolInstall,
  releaseSign,
];
