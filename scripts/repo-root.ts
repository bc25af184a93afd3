/** The repository's root directory: every script, test and benchmark finds the checkout's files from it. */
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
