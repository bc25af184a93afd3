/**
 * The Pulumi front ends (dynamic and native) that the provider suites and the shared scenarios
 * run through. Suites build their programs only from `fe.sdk` classes and pass `fe.env` to the
 * stack, so the same suite drives each front end.
 */
import * as dynamicSdk from "../../sdk/index.ts";
import * as nativeSdk from "../../sdk/native/index.ts";
import { NATIVE_ENV } from "./native.ts";

export interface FrontEnd {
  name: "dynamic" | "native";
  sdk: typeof import("../../sdk/index.ts");
  env?: Record<string, string>;
}

export const FRONT_ENDS: FrontEnd[] = [
  { name: "dynamic", sdk: dynamicSdk },
  // The native plugin: the engine finds pulumi-resource-cws on PATH.
  { name: "native", sdk: nativeSdk, env: NATIVE_ENV },
];
