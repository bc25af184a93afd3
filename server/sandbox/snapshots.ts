// The files of published (USER) sandbox templates: one snapshot directory per template.

import * as fs from "node:fs";
import * as fsp from "node:fs/promises";
import * as path from "node:path";
import type { Store } from "../store/store.ts";
import type { SandboxRuntime } from "./runtime/index.ts";

/**
 * The files of published (USER) sandbox templates: one snapshot directory per template under
 * <sandbox root>/templates, written by publish, read by every sandbox started from the template,
 * removed once the template is deleted or failed.
 */
export class Snapshots {
  private readonly root: string;
  private readonly ensureRoot: () => Promise<void>;

  /** `sandboxRoot` is created by ensureRoot before the first snapshot is written. */
  constructor(sandboxRoot: string, ensureRoot: () => Promise<void>) {
    this.root = path.join(sandboxRoot, "templates");
    this.ensureRoot = ensureRoot;
  }

  dir(templateUid: string): string {
    return path.join(this.root, templateUid);
  }

  /** Whether the template's files are on this server (a complete snapshot has its manifest). */
  has(templateUid: string): boolean {
    return fs.existsSync(path.join(this.dir(templateUid), "cws-snapshot.json"));
  }

  /** Copies the files of sandbox `id` of rt into the template's directory (replacing any). */
  async take(rt: SandboxRuntime, id: string, templateUid: string): Promise<void> {
    const dir = this.dir(templateUid);
    await this.ensureRoot();
    await fsp.rm(dir, { recursive: true, force: true });
    await rt.snapshot(id, dir);
  }

  /** Removes snapshot directories whose USER template was deleted or failed. */
  async collect(store: Store): Promise<void> {
    const names = await fsp.readdir(this.root).catch(() => [] as string[]);
    for (const name of names) {
      const t = store.sandboxTemplates.get(name);
      if (t && t.status !== "FAILED") continue;
      await fsp.rm(path.join(this.root, name), { recursive: true, force: true }).catch(() => {});
    }
  }

  /** Removes every snapshot (admin reset). */
  async clear(): Promise<void> {
    await fsp.rm(this.root, { recursive: true, force: true });
  }
}
