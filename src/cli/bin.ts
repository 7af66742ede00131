#!/usr/bin/env node
// The installed `hsearch` command: compiled to dist/cli/bin.js by `npm run build` (run by `npm ci` via `prepare`).
import { main } from "./main";

process.exitCode = await main(process.argv.slice(2));
