/**
 * Resource identity (OpenTofu 1.12+, Terraform 1.12+): every resource is identified by the
 * organization it lives in and its UID. OpenTofu keeps the identity beside the state, and an
 * `import` block may name an object by it instead of by id:
 *
 *     import {
 *       to       = cws_workload.web
 *       identity = { org = "acme", uid = "wl-1234abcd" }
 *     }
 *
 * `uid` is required; `org` may be left out (the provider's org). An identity of another org than
 * the provider's is refused: the provider cannot reach it. Version 0 is the only one so far;
 * UpgradeResourceIdentity reads it back (and fills in an org a stored identity lacks).
 */
import type { Diagnostic } from "./diagnostics.ts";
import { errorDiag } from "./diagnostics.ts";
import { UNKNOWN_VALUE, type TfObject } from "./msgpack.ts";
import type { TfResource } from "./tf-schema.ts";
import { decodeValue, encodeValue, type DynamicValue } from "./values.ts";

export const IDENTITY_VERSION = 0;

/** ResourceIdentityData as tfplugin6 carries it. */
export interface IdentityData {
  identity_data?: DynamicValue;
}

export interface Identity {
  org: string | null;
  uid: string;
}

/** The GetResourceIdentitySchemas answer: { org, uid } for every resource. */
export function identitySchemas(resources: TfResource[]) {
  const string = Buffer.from(JSON.stringify("string"));
  return Object.fromEntries(
    resources.map((r) => [
      r.typeName,
      {
        version: IDENTITY_VERSION,
        identity_attributes: [
          {
            name: "org",
            type: string,
            optional_for_import: true,
            description: "The organization slug the object lives in; by default the provider's `org`.",
          },
          {
            name: "uid",
            type: string,
            required_for_import: true,
            description: `The ${r.typeName}'s UID on the service (its id).`,
          },
        ],
      },
    ]),
  );
}

/** An identity as tfplugin6 carries it. */
export const identityData = (org: string | undefined, uid: string | typeof UNKNOWN_VALUE): IdentityData => ({
  identity_data: encodeValue({ org: org ?? null, uid }),
});

/** The identity a request carries, or undefined (none, or an empty one). */
export function identityOf(data: IdentityData | null | undefined): Identity | undefined {
  const v = decodeValue(data?.identity_data);
  if (!v) return undefined;
  return { org: typeof v.org === "string" ? v.org : null, uid: typeof v.uid === "string" ? v.uid : "" };
}

/** Why an identity cannot be imported by a provider configured for `org`, if it cannot. */
export function identityProblem(r: TfResource, identity: Identity, org: string | undefined): Diagnostic[] {
  if (!identity.uid) {
    return [errorDiag(`cannot import ${r.typeName}`, 'the identity has no uid: identity = { uid = "..." }')];
  }
  if (identity.org && org && identity.org !== org) {
    return [
      errorDiag(
        `cannot import ${r.typeName} ${identity.uid}`,
        `the identity names org "${identity.org}", but the provider is configured for org "${org}": use a provider block (alias) for "${identity.org}"`,
      ),
    ];
  }
  return [];
}

/** UpgradeResourceIdentity: a stored identity (JSON) read back as the current version. */
export function upgradeIdentity(
  raw: { json?: Buffer } | undefined,
  version: number,
  org: string | undefined,
): { upgraded_identity?: IdentityData; diagnostics: Diagnostic[] } {
  if (version > IDENTITY_VERSION) {
    return {
      diagnostics: [
        errorDiag(
          "Resource identity from a newer provider",
          `the stored identity is version ${version}; this provider knows version ${IDENTITY_VERSION}: upgrade the provider`,
        ),
      ],
    };
  }
  let stored: TfObject = {};
  try {
    stored = raw?.json?.length ? (JSON.parse(raw.json.toString("utf8")) as TfObject) : {};
  } catch {
    // Not JSON: said below, as an identity without a uid.
  }
  const uid = typeof stored.uid === "string" ? stored.uid : typeof stored.id === "string" ? stored.id : "";
  if (!uid) {
    return { diagnostics: [errorDiag("Invalid resource identity", "the stored identity has no uid")] };
  }
  return {
    upgraded_identity: identityData(typeof stored.org === "string" ? stored.org : org, uid),
    diagnostics: [],
  };
}
