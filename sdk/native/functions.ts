/**
 * Lookups through the plugin (`cws:index:<name>` Invokes), typed from the api/ contract. Outside a
 * Pulumi program, call the same lookups on a client: `pulumi-cws/provider/functions`.
 */
import * as pulumi from "@pulumi/pulumi";
import type {
  BmImage,
  Region,
  SandboxTemplate,
  SshKey,
  VmImage,
  Volume,
  WorkloadTemplate,
} from "../../api/index.ts";

type CamelKey<S extends string> = S extends `${infer H}_${infer T}` ? `${H}${Capitalize<CamelKey<T>>}` : S;
/** A wire type with camelCase names, as lookups return it. */
export type Camel<T> = T extends (infer U)[]
  ? Camel<U>[]
  : T extends object
    ? { [K in keyof T as CamelKey<K & string>]: Camel<T[K]> }
    : T;

function invoke<R>(name: string, args: object, opts?: pulumi.InvokeOptions): Promise<R> {
  return pulumi.runtime.invoke(`cws:index:${name}`, args, opts) as Promise<R>;
}

export interface GetSandboxTemplatesArgs {
  kind?: "FRESH" | "USER";
  status?: "PENDING" | "READY" | "FAILED";
  name?: string;
}
export const getSandboxTemplates = (args: GetSandboxTemplatesArgs = {}, opts?: pulumi.InvokeOptions) =>
  invoke<{ templates: Camel<SandboxTemplate>[] }>("getSandboxTemplates", args, opts);

export const getRegions = (args: { activeOnly?: boolean } = {}, opts?: pulumi.InvokeOptions) =>
  invoke<{ regions: Camel<Region>[] }>("getRegions", args, opts);

export const getVmImages = (args: { name?: string } = {}, opts?: pulumi.InvokeOptions) =>
  invoke<{ images: Camel<VmImage>[] }>("getVmImages", args, opts);

export const getBmImages = (args: { name?: string } = {}, opts?: pulumi.InvokeOptions) =>
  invoke<{ images: Camel<BmImage>[] }>("getBmImages", args, opts);

export interface GetWorkloadTemplatesArgs {
  type?: "RENTAL" | "VM" | "BM" | "SANDBOX";
  visibility?: "PUBLIC" | "PRIVATE";
  name?: string;
}
export const getWorkloadTemplates = (args: GetWorkloadTemplatesArgs = {}, opts?: pulumi.InvokeOptions) =>
  invoke<{ templates: Camel<Omit<WorkloadTemplate, "manifest">>[] }>("getWorkloadTemplates", args, opts);

export const getSshKeys = (args: { name?: string } = {}, opts?: pulumi.InvokeOptions) =>
  invoke<{ keys: Camel<SshKey>[] }>("getSshKeys", args, opts);

export const getVolumes = (args: { name?: string } = {}, opts?: pulumi.InvokeOptions) =>
  invoke<{ volumes: Camel<Volume>[] }>("getVolumes", args, opts);
