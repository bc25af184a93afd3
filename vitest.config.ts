import { configDefaults, defineConfig } from "vitest/config";

// `pulumi-cws/...` imported by name (as the examples do) resolves to the sources, not dist/.
const conditions = ["pulumi-cws-source"];

/**
 * Suites outside `npm test`, each run by its own npm script, which sets CWS_SUITE to its name: the
 * Windows check under Wine (`npm run test:windows`: its cold setup is too long for every CI run).
 */
const OWN_SUITES: Record<string, string> = { windows: "test/e2e/windows/**" };
const own = process.env.CWS_SUITE;

export default defineConfig({
  ssr: { resolve: { conditions } },
  test: {
    include: ["test/**/*.test.ts"],
    exclude: [
      ...configDefaults.exclude,
      ...Object.entries(OWN_SUITES)
        .filter(([n]) => n !== own)
        .map(([, g]) => g),
    ],
    // dist/ current, and the plugins the tests start run from it (test/global-setup.ts).
    globalSetup: ["test/global-setup.ts"],
    pool: "forks",
    testTimeout: 60_000,
    hookTimeout: 120_000,
    maxWorkers: 2,
  },
});
