/** `npm run pulumi:build`: make the Pulumi CLI available (cache, PATH, or a build from the Go module proxy). */
import { ensurePulumi } from "./pulumi-toolchain.ts";

try {
  const root = await ensurePulumi();
  console.log(`${root}/bin/pulumi`);
} catch (e) {
  console.error(`error: ${(e as Error).message}`);
  process.exit(1);
}
