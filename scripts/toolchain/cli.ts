/**
 * `node scripts/toolchain/cli.ts <tool> [step]`, what the npm scripts run:
 *
 *   pulumi:build      pulumi               the Pulumi CLI and YAML host (prints the CLI's path)
 *                     pulumi windows       their Windows builds for the Windows check (prints the root)
 *   tofu:build        tofu                 the OpenTofu CLI (prints its path)
 *                     tofu windows         the Windows tofu.exe of the Windows check (prints its path)
 *   terraform:build   terraform            the HashiCorp Terraform CLI (prints its path)
 *   test:next         next                 the next OpenTofu and Terraform (prints their paths)
 *   sdk:gen           languages gen        sdk/python and sdk/go from schema.json
 *   languages:setup   languages all        gen, then python (.venv) and go (the Go programs' modules)
 *   java:setup        java all             host, sdk (generated, built, published), example
 *
 * The step is `all` when left out. A failure is printed as one line and exits 1. Each tool's
 * module is loaded only when asked for, so `pulumi:build` loads no more than it needs.
 */
import { join } from "node:path";

type Steps = Record<string, () => Promise<unknown>>;

const TOOLS: Record<string, () => Promise<Steps>> = {
  async pulumi() {
    const { ensurePulumi, ensureWindowsPulumi } = await import("./pulumi.ts");
    return {
      windows: async () => console.log(await ensureWindowsPulumi()),
      all: async () => console.log(join(await ensurePulumi(), "bin", "pulumi")),
    };
  },
  async tofu() {
    const { OLDEST_TOFU_VERSION, ensureTofu, ensureWindowsTofu } = await import("./tofu.ts");
    return {
      windows: async () => console.log(await ensureWindowsTofu()),
      all: async () => {
        console.log(await ensureTofu());
        // The release before write-only attributes, for the tests of what it gets.
        await ensureTofu(OLDEST_TOFU_VERSION);
      },
    };
  },
  async terraform() {
    const { ensureTerraform } = await import("./terraform.ts");
    return { all: async () => console.log(await ensureTerraform()) };
  },
  async next() {
    const { NEXT_TOFU_VERSION, ensureTofu } = await import("./tofu.ts");
    const { NEXT_TERRAFORM_VERSION, ensureTerraform } = await import("./terraform.ts");
    return {
      all: async () => {
        console.log(await ensureTofu(NEXT_TOFU_VERSION));
        console.log(await ensureTerraform(NEXT_TERRAFORM_VERSION));
      },
    };
  },
  async languages() {
    const { ensureGoModules, ensurePythonEnv, generateSdks } = await import("./languages.ts");
    return {
      gen: () => generateSdks(),
      python: () => ensurePythonEnv(),
      go: () => ensureGoModules(),
      all: async () => {
        await generateSdks();
        await ensurePythonEnv();
        await ensureGoModules();
      },
    };
  },
  async java() {
    const java = await import("./java.ts");
    const sdk = async () => {
      await java.generateJavaSdk();
      await java.publishJavaSdk(java.CHECKOUT_MAVEN_REPO);
    };
    return {
      host: () => java.ensureJavaHost(),
      sdk,
      example: () => java.warmJavaExample(),
      all: async () => {
        await sdk();
        await java.warmJavaExample();
      },
    };
  },
};

/** Runs step `step` of tool `tool`, or says which tools and steps there are. */
async function main(tool = "", step = "all"): Promise<void> {
  const load = TOOLS[tool];
  if (!load) throw new Error(`unknown tool '${tool}' (${Object.keys(TOOLS).join(", ")})`);
  const steps = await load();
  const fn = steps[step];
  if (!fn) throw new Error(`unknown step '${step}' of ${tool} (${Object.keys(steps).join(", ")})`);
  await fn();
}

try {
  await main(process.argv[2], process.argv[3]);
} catch (e) {
  console.error(`error: ${(e as Error).message}`);
  process.exit(1);
}
