import { defineConfig } from "vitest/config";
import base from "./vitest.config.ts";

// `npm run test:next`: the suites of the next OpenTofu and Terraform (test/**/*.next.ts), which
// the default run (vitest.config.ts: test/**/*.test.ts) leaves out, so that a beta cannot break it.
export default defineConfig({ ...base, test: { ...base.test, include: ["test/**/*.next.ts"] } });
