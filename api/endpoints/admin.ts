import * as api from "../index.ts";
import type { Reason } from "../index.ts";
import { SERVER_SCHEMAS } from "./answers.ts";
import { created, noContent, ok, endpointGroup } from "./common.ts";

const ORG_NOT_FOUND: Reason[] = ["ORG_NOT_FOUND"];

/** The admin surface of the reference server (under /admin). */
export const ADMIN = endpointGroup(
  "admin",
  {
    reset: {
      method: "POST",
      pattern: "/reset",
      summary:
        "Back to the seed: every org's resources, events, credits, faults, rules and run-time rate limits dropped",
      responses: ok(SERVER_SCHEMAS.AdminReset),
      reasons: [],
    },
    listOrgs: {
      method: "GET",
      pattern: "/orgs",
      summary: "The orgs of the seed, their credit balance, rate limit and requests refused by it",
      responses: ok(SERVER_SCHEMAS.OrgList),
      reasons: [],
    },
    orgResources: {
      method: "GET",
      pattern: "/orgs/:org/resources",
      summary: "Every live resource of an org",
      responses: ok(SERVER_SCHEMAS.AdminResources),
      reasons: ORG_NOT_FOUND,
    },
    createFault: {
      method: "POST",
      pattern: "/faults",
      summary: "Inject a fault into the next matching API requests",
      body: api.FaultCreate,
      bodyReason: "ADMIN_INVALID",
      responses: created(SERVER_SCHEMAS.FaultCreated),
      reasons: ["ADMIN_INVALID"],
    },
    listFaults: {
      method: "GET",
      pattern: "/faults",
      summary: "List pending faults",
      responses: ok(SERVER_SCHEMAS.FaultList),
      reasons: [],
    },
    clearFaults: {
      method: "DELETE",
      pattern: "/faults",
      summary: "Clear faults",
      responses: noContent,
      reasons: [],
    },
    createProvisioningRule: {
      method: "POST",
      pattern: "/orgs/:org/provisioning",
      summary: "Decide how deploys of matching workloads end",
      body: api.ProvisioningRuleCreate,
      bodyReason: "ADMIN_INVALID",
      responses: created(SERVER_SCHEMAS.ProvisioningRule),
      reasons: [...ORG_NOT_FOUND, "ADMIN_INVALID"],
    },
    listProvisioningRules: {
      method: "GET",
      pattern: "/orgs/:org/provisioning",
      summary: "List an org's provisioning rules",
      responses: ok(SERVER_SCHEMAS.ProvisioningRuleList),
      reasons: ORG_NOT_FOUND,
    },
    clearProvisioningRules: {
      method: "DELETE",
      pattern: "/orgs/:org/provisioning",
      summary: "Clear an org's provisioning rules",
      responses: noContent,
      reasons: ORG_NOT_FOUND,
    },
    setCredits: {
      method: "POST",
      pattern: "/orgs/:org/credits",
      summary: "Set an org's credit balance (USD)",
      body: api.CreditsBody,
      bodyReason: "ADMIN_INVALID",
      responses: ok(SERVER_SCHEMAS.Credits),
      reasons: [...ORG_NOT_FOUND, "ADMIN_INVALID"],
    },
    getCredits: {
      method: "GET",
      pattern: "/orgs/:org/credits",
      summary: "An org's credit balance (USD)",
      responses: ok(SERVER_SCHEMAS.Credits),
      reasons: ORG_NOT_FOUND,
    },
    getRateLimit: {
      method: "GET",
      pattern: "/orgs/:org/rate-limit",
      summary: "An org's request rate limit, where it comes from, and how many requests it refused",
      responses: ok(api.OrgRateLimit),
      reasons: ORG_NOT_FOUND,
    },
    setRateLimit: {
      method: "PUT",
      pattern: "/orgs/:org/rate-limit",
      summary: "Set an org's request rate limit ({ rps, burst }), or lift it (null)",
      description:
        "A token bucket of `burst` requests (default: rps rounded up) refilled at `rps` a second; it starts full. Overrides the seed's and the server's limit until DELETE or an admin reset.",
      body: api.RateLimitUpdate,
      bodyReason: "ADMIN_INVALID",
      responses: ok(api.OrgRateLimit),
      reasons: [...ORG_NOT_FOUND, "ADMIN_INVALID"],
    },
    listInventory: {
      method: "GET",
      pattern: "/inventory",
      summary: "Every inventory resource with its capacity, the units in use and those free",
      responses: ok(api.InventoryList),
      reasons: [],
    },
    setInventoryCapacity: {
      method: "PUT",
      pattern: "/inventory/:resource_name",
      summary:
        "Set how many workloads may hold an inventory resource at once ({ capacity }), or give the seed's back (null)",
      description:
        "Sells out a resource (`0`) or restocks it at run time, for every org. Units already held stay held; a deploy is refused with `WORKLOAD_NO_CAPACITY` (BM: `WORKLOAD_BM_CLAIM_CONFLICT`) while none is free. Kept in memory until an admin reset or a restart.",
      body: api.InventoryCapacityUpdate,
      bodyReason: "ADMIN_INVALID",
      responses: ok(api.InventoryStock),
      reasons: ["INVENTORY_NOT_FOUND", "ADMIN_INVALID"],
    },
    clearRateLimit: {
      method: "DELETE",
      pattern: "/orgs/:org/rate-limit",
      summary: "Drop the limit set at run time: the seed's or the server's applies again",
      responses: ok(api.OrgRateLimit),
      reasons: ORG_NOT_FOUND,
    },
  },
  { prefix: "/admin", auth: "admin" },
);
