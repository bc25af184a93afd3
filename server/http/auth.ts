import type { Store } from "../store/store.ts";

/** Who a request is: API tokens and the organizations they belong to come from the seed. */

/** The organization an API token belongs to, or undefined for an unknown token. */
export function orgOfToken(store: Store, token: string): string | undefined {
  return store.seed.orgs.find((o) => o.tokens.includes(token))?.slug;
}

export function orgExists(store: Store, org: string): boolean {
  return store.seed.orgs.some((o) => o.slug === org);
}
