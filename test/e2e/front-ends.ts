/**
 * The front ends every provider scenario runs through. Scenarios build their programs only from
 * `fe.sdk` classes and pass `fe.env` to the stack, so the same scenario drives each front end.
 */
import * as dynamicSdk from "../../sdk/index.ts";

export interface FrontEnd {
  name: "dynamic" | "native";
  sdk: typeof import("../../sdk/index.ts");
  env?: Record<string, string>;
}

export const FRONT_ENDS: FrontEnd[] = [{ name: "dynamic", sdk: dynamicSdk }];
