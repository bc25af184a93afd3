// One-time access tickets for the terminal and desktop WebSockets of sandboxes.

import { randomBytes } from "node:crypto";
import { ApiError } from "../http/errors.ts";
import type { Clock } from "../common/util.ts";
import type { Pool } from "./pools.ts";

/** How long an expired access ticket is remembered (to answer "expired" rather than "unknown"). */
const TICKET_GRACE_MS = 5 * 60_000;

interface TicketEntry {
  org: string;
  uid: string;
  pool: Pool;
  expiresAt: number;
}

/** One-time access tickets for terminal and desktop WebSockets (spec: POST .../access-tickets). */
export class AccessTickets {
  private readonly clock: Clock;
  private readonly tickets = new Map<string, TicketEntry>();

  constructor(clock: Clock) {
    this.clock = clock;
  }

  mint(org: string, uid: string, pool: Pool, ttlSec: number): { ticket: string; expires_at: string } {
    const ticket = randomBytes(24).toString("base64url");
    const expiresAt = this.clock.now() + ttlSec * 1000;
    this.tickets.set(ticket, { org, uid, pool, expiresAt });
    return { ticket, expires_at: new Date(expiresAt).toISOString() };
  }

  /** Consumes a ticket (whatever the outcome) and returns its pool; 401 when it does not admit org/uid now. */
  consume(ticket: string, org: string, uid: string): Pool {
    const t = this.tickets.get(ticket);
    this.tickets.delete(ticket);
    if (!t)
      throw new ApiError("WORKLOAD_ACCESS_TICKET_INVALID", "access ticket is unknown or was already used");
    if (this.clock.now() >= t.expiresAt)
      throw new ApiError("WORKLOAD_ACCESS_TICKET_INVALID", "access ticket has expired; mint a new one");
    if (t.org !== org || t.uid !== uid)
      throw new ApiError(
        "WORKLOAD_ACCESS_TICKET_INVALID",
        "access ticket was issued for another organization or workload",
      );
    return t.pool;
  }

  /** Drops the tickets of a deleted workload. */
  forgetWorkload(uid: string): void {
    for (const [k, t] of this.tickets) if (t.uid === uid) this.tickets.delete(k);
  }

  /** Expired tickets are kept a while, so that a late handshake is told why it is refused. */
  sweep(now: number): void {
    for (const [k, t] of this.tickets) if (now >= t.expiresAt + TICKET_GRACE_MS) this.tickets.delete(k);
  }

  clear(): void {
    this.tickets.clear();
  }
}
