import { z } from "zod";

export const Health = z.object({ status: z.string() });
export type Health = z.infer<typeof Health>;
export const Version = z.object({
  name: z.string(),
  version: z.string(),
  gitHash: z.string(),
  buildDate: z.string(),
});
export type Version = z.infer<typeof Version>;

export const Region = z.object({ uid: z.string(), name: z.string(), active: z.boolean() });
export type Region = z.infer<typeof Region>;
export const RegionList = z.array(Region);

export const VmImage = z.object({ name: z.string(), display_name: z.string(), description: z.string() });
export type VmImage = z.infer<typeof VmImage>;
export const BmImage = z.object({ name: z.string(), display_name: z.string(), os_family: z.string() });
export type BmImage = z.infer<typeof BmImage>;
export const VmImageList = z.array(VmImage);
export const BmImageList = z.array(BmImage);
