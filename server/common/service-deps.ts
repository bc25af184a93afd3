/** `ServiceDeps`: what every service of the server is built with. */
import type { Store } from "../store/store.ts";
import type { Cursors } from "./cursors.ts";

/** The store, the list cursors and the time. */
export interface ServiceDeps {
  store: Store;
  cursors: Cursors;
  now(): string;
}
