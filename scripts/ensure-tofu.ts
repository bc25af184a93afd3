/** `npm run tofu:build`: make the OpenTofu CLI available (cache, or a build from the Go module proxy). */
import { ensureTofu } from "./tofu-toolchain.ts";

try {
  console.log(await ensureTofu());
} catch (e) {
  console.error(`error: ${(e as Error).message}`);
  process.exit(1);
}
