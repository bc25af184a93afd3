#!/usr/bin/env node
/** `cws` as the npm package runs it (bin/cws): the command of cli/cws-command.ts. */
import { cws } from "./cws-command.ts";

cws(process.argv.slice(2)).catch((e: unknown) => {
  process.stderr.write(`cws: ${(e as Error).message}\n`);
  process.exit(1);
});
