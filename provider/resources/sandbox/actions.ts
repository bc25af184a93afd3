/**
 * The sandbox's action: `SandboxWriteFile` writes a file into a running sandbox (PUT .../files),
 * what a user does once a sandbox is up (a configuration, a seed, a key) rather than declares.
 * Its content is a secret: never printed, never in an error. Refused before it runs, naming the
 * rule, for a workload that is not a sandbox or a sandbox that is not running.
 */
import { z } from "zod";
import { FileBody, LIMITS } from "../../../api/index.ts";
import type { ActionDefinition } from "../../core/action.ts";
import type { CheckFailure, Props } from "../../core/types.ts";
import { UNKNOWN } from "../../core/unknowns.ts";
import {
  ACTION_WAIT_SEC,
  checkTarget,
  named,
  runningTarget,
  workloadIdInput,
  type TypeRule,
} from "../workload/actions.ts";

const onlySandbox: TypeRule = (w) =>
  w.type === "SANDBOX"
    ? undefined
    : `writing a file is for sandboxes only: workload ${named(w)} is ${w.type} (the service has no file access to other types)`;

/** The bytes to write: `content` as UTF-8, or `contentBase64` decoded. */
const bytesOf = (args: Props) =>
  typeof args.content === "string"
    ? Buffer.from(args.content, "utf8")
    : Buffer.from(String(args.contentBase64 ?? ""), "base64");

export const sandboxWriteFile: ActionDefinition = {
  name: "SandboxWriteFile",
  kind: "Sandbox",
  description:
    "Writes a file into a running sandbox (creating or replacing it): a configuration, a seed, a key, once the sandbox is up. The content is sensitive: never printed. A workload that is not a sandbox, or a sandbox that is not running, is refused.",
  inputs: {
    workloadId: workloadIdInput("sandbox"),
    path: {
      type: FileBody.shape.path,
      description: "Where to write it: an absolute path in the sandbox.",
      required: true,
    },
    content: {
      type: z.string(),
      description: "The file's text (UTF-8). Give this or `content_base64`.",
      secret: true,
    },
    contentBase64: {
      type: FileBody.shape.content_b64,
      description: "The file's bytes, base64 (`filebase64(...)`). Give this or `content`.",
      secret: true,
    },
  },
  validate(args: Props): CheckFailure[] {
    const given = ["content", "contentBase64"].filter((k) => args[k] !== undefined);
    if (given.length !== 1)
      return [
        {
          property: "content",
          reason: `give exactly one of content and contentBase64 (${given.length ? "both are set" : "neither is set"})`,
        },
      ];
    if (args[given[0]!] === UNKNOWN) return [];
    const size = bytesOf(args).length;
    return size > LIMITS.fileMaxBytes
      ? [
          {
            property: given[0]!,
            reason: `a file is at most ${LIMITS.fileMaxBytes} bytes (256 MiB); this is ${size}`,
          },
        ]
      : [];
  },
  check: (ctx, args, plan) => checkTarget("cws_sandbox_write_file", onlySandbox, ctx, args, plan),
  async invoke(ctx, args) {
    const uid = String(args.workloadId);
    const w = await runningTarget("cws_sandbox_write_file", onlySandbox, ctx, uid, ACTION_WAIT_SEC * 1000);
    const data = bytesOf(args);
    await ctx.client.sandboxes.writeFile(uid, String(args.path), data, { signal: ctx.signal });
    ctx.progress(`wrote ${data.length} bytes to ${String(args.path)} in sandbox ${named(w)}`);
  },
  notes:
    "A file the sandbox had at that path is replaced. Nothing a resource declares changes, so the plan after it has nothing to do; the file is not managed (a later change of `content` writes it only when the action runs again).",
  example: { workloadId: "${cws_sandbox.box.id}", path: "/workspace/app.conf", content: "mode = prod\n" },
};
