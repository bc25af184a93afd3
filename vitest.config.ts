import { defineConfig } from "vitest/config";

// `pulumi-cws/...` imported by name (as the examples do) resolves to the sources, not dist/.
const conditions = ["pulumi-cws-source"];

export default defineConfig({
  ssr: { resolve: { conditions } },
  test: {
    include: ["test/**/*.test.ts"],
    pool: "forks",
    testTimeout: 60_000,
    hookTimeout: 120_000,
    maxWorkers: 2,
  },
});
