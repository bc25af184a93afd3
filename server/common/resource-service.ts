/**
 * `ResourceService`: what the services of volumes, SSH keys, workload templates and sandbox
 * templates share (get, list, PATCH, delete, events), and the rules that make each kind differ.
 */
import type { PageQuery, Reason } from "../../api/index.ts";
import { notFound } from "../http/errors.ts";
import type { Doc, DocTable } from "../store/doc-table.ts";
import type { Store } from "../store/store.ts";
import type { Cursors } from "./cursors.ts";
import { eventPageOf, pageOf, type PageResult } from "./pages.ts";
import type { ServiceDeps } from "./service-deps.ts";

/** The rules that make one kind of document a resource of the API. */
export interface ResourceRules<R extends Doc, P> {
  /** The resource's path segment, also the name its cursors are bound to (e.g. "volumes"). */
  name: string;
  /** How messages name one member (e.g. "volume", "SSH key"). */
  noun: string;
  /** Reason of an unknown (or another org's) member. */
  notFound: Reason;
  /** Applies a valid PATCH body; returns whether anything changed (may throw a rule's error first). */
  apply(r: R, patch: P): boolean;
  /** The members the org sees, in creation order (default: its own). */
  visible?(org: string): readonly R[];
  /** Whether the org sees r (default: r is the org's). */
  sees?(org: string, r: R): boolean;
  /** Throws when the org may see but not change r (e.g. 403 read-only). */
  writable?(org: string, r: R, action: "changed" | "deleted"): void;
  /** Throws when r cannot be deleted now (in use, still publishing). */
  deletable?(r: R): void;
  /** Runs in the delete's transaction before r is removed (e.g. records an event). */
  onDelete?(r: R): void;
  /** The store's event kind of the members' events, when they have events. */
  events?: string;
}

/** The `apply` of a resource whose PATCH only renames (volumes, SSH keys). */
export function rename<R extends { name: string }>(r: R, patch: { name: string }): boolean {
  if (patch.name === r.name) return false;
  r.name = patch.name;
  return true;
}

/**
 * The service of one resource of the API (volumes, SSH keys, workload templates, sandbox
 * templates): get, list with opaque cursors (common/pages.ts), PATCH (its body checked by the
 * endpoint's strict schema, api/endpoints/), delete and events, the same for every kind. A
 * service extends it with what only its kind has (create, rules across kinds).
 */
export class ResourceService<R extends Doc & { updated_at: string }, P> {
  protected readonly docs: DocTable<R>;
  protected readonly store: Store;
  protected readonly cursors: Cursors;
  protected readonly now: () => string;
  private readonly rules: ResourceRules<R, P>;

  constructor(deps: ServiceDeps, docs: DocTable<R>, rules: ResourceRules<R, P>) {
    this.docs = docs;
    this.store = deps.store;
    this.cursors = deps.cursors;
    this.now = deps.now;
    this.rules = rules;
  }

  /** The member the org sees, or 404 with the resource's reason (another org's members do not exist for it). */
  get(org: string, uid: string): R {
    const r = this.docs.get(uid);
    const sees = this.rules.sees ?? ((o: string, d: R) => d.org === o);
    if (!r || !sees(org, r)) throw notFound(this.rules.notFound, this.rules.noun, uid);
    return r;
  }

  /** The members the org sees, in creation order. */
  visible(org: string): readonly R[] {
    return this.rules.visible ? this.rules.visible(org) : this.docs.list(org);
  }

  /** A page of what the org sees, those passing `filter`. */
  list(org: string, q: PageQuery, filter?: (r: R) => boolean): PageResult<R> {
    const scope = { cursors: this.cursors, org, list: this.rules.name };
    return pageOf(scope, this.visible(org), (r) => this.docs.seqOf(r.uid)!, q, filter);
  }

  /** The member, when the org may change it (the resource's read-only rule otherwise). */
  writable(org: string, uid: string, action: "changed" | "deleted" = "changed"): R {
    const r = this.get(org, uid);
    this.rules.writable?.(org, r, action);
    return r;
  }

  /**
   * PATCH: finds the member (404, read-only), then reads the body (`readBody` checks it against
   * the endpoint's strict schema, so unknown fields are refused) and applies it.
   */
  async patch(org: string, uid: string, readBody: () => Promise<P>): Promise<R> {
    const r = this.writable(org, uid);
    if (this.rules.apply(r, await readBody())) {
      r.updated_at = this.now();
      this.docs.put(r);
    }
    return r;
  }

  delete(org: string, uid: string): void {
    const r = this.writable(org, uid, "deleted");
    this.rules.deletable?.(r);
    this.store.transaction(() => {
      this.rules.onDelete?.(r);
      this.docs.remove(r.uid);
    });
  }

  /** A page of a member's events, oldest first. */
  events<E>(org: string, r: R, q: PageQuery): PageResult<E> {
    const kind = this.rules.events;
    if (!kind) throw new Error(`${this.rules.name} have no events`);
    const scope = { cursors: this.cursors, org, list: `${this.rules.name}/${r.uid}/events` };
    return eventPageOf<E>(scope, this.store, kind, r.uid, q);
  }
}
