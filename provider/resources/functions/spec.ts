/** What a lookup (a Pulumi function, an OpenTofu data source) states: its arguments and its result. */
import { z } from "zod";

export interface FunctionArg {
  schema: z.ZodType;
  description: string;
  required?: boolean;
  /** A Pulumi secret (sensitive in OpenTofu). */
  secret?: boolean;
}

export interface FunctionResult {
  /** Typed by the api/ contract (wire names become camelCase). */
  schema: z.ZodType;
  description: string;
  required?: boolean;
  secret?: boolean;
}

export interface FunctionSpec {
  description: string;
  /** Arguments (camelCase). */
  args: Record<string, FunctionArg>;
  /** Rules no single argument states (exactly one of two); each failure names an argument. */
  validate?(args: Record<string, unknown>): { property: string; reason: string }[];
  /**
   * The result's properties. A list of objects is typed `cws:index:<Name>Item` after the function
   * (getRegions: RegionsItem); any other object after its property, or its contract name.
   */
  result: Record<string, FunctionResult>;
}

/** A result that is one list (always present). */
export const listOf = (name: string, item: z.ZodObject, description: string): FunctionSpec["result"] => ({
  [name]: { schema: z.array(item), description, required: true },
});
