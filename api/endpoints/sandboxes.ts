/** Sandboxes (spec 4.2): the endpoints only sandboxes have, their WebSockets included. */
import * as api from "../index.ts";
import {
  DEPLOY,
  SANDBOX_TARGET,
  W,
  created,
  noContent,
  ok,
  endpointGroup,
  workloadAction,
} from "./common.ts";

/** What each WebSocket handshake declares: how it is admitted, and its answer. */
const WEBSOCKET = {
  description: "A WebSocket handshake, admitted by `?ticket=` or a bearer token of the org.",
  queryParams: [{ name: "ticket", description: "a single-use access ticket" }],
  responses: { 101: { description: "Switching Protocols", schema: null } },
  websocket: true,
};

/** Sandbox-only operations and their WebSockets (spec 4.2). */
export const SANDBOXES = endpointGroup("sandboxes", {
  freeze: {
    ...workloadAction("freeze", "Freeze a running sandbox", SANDBOX_TARGET),
    leadsTo: [{ operation: `POST ${W}/thaw`, description: "Thaw the sandbox this froze" }],
  },
  thaw: workloadAction("thaw", "Thaw a frozen sandbox", SANDBOX_TARGET),
  fork: {
    method: "POST",
    pattern: `${W}/fork`,
    summary: "Fork a running sandbox (child created and deployed)",
    body: api.ForkBody,
    bodyOptional: true,
    responses: created(api.WorkloadOperation),
    creates: { pattern: W },
    reasons: [...SANDBOX_TARGET, ...DEPLOY, "WORKLOAD_NAME_INVALID"],
  },
  publish: {
    method: "POST",
    pattern: `${W}/publish`,
    summary: "Publish a running sandbox as a USER sandbox template",
    body: api.PublishBody,
    bodyReason: "SANDBOX_TEMPLATE_INVALID",
    responses: { 202: { description: "Accepted: the template is PENDING", schema: api.SandboxTemplate } },
    creates: { pattern: "/orgs/:org/sandbox-templates/:uid" },
    reasons: [...SANDBOX_TARGET, "SANDBOX_TEMPLATE_INVALID"],
  },
  readFile: {
    method: "GET",
    pattern: `${W}/files`,
    summary: "Read a file of a sandbox",
    query: api.FileQuery,
    responses: ok(api.FileContent),
    reasons: [...SANDBOX_TARGET, "WORKLOAD_SANDBOX_PATH_INVALID", "WORKLOAD_SANDBOX_FILE_TOO_LARGE"],
  },
  writeFile: {
    method: "PUT",
    pattern: `${W}/files`,
    summary: "Write a file into a sandbox",
    body: api.FileBody,
    responses: noContent,
    reasons: [...SANDBOX_TARGET, "WORKLOAD_SANDBOX_PATH_INVALID", "WORKLOAD_SANDBOX_FILE_TOO_LARGE"],
  },
  createTicket: {
    method: "POST",
    pattern: `${W}/access-tickets`,
    summary: "Mint a single-use access ticket for the terminal and desktop sockets",
    body: api.TicketBody,
    bodyOptional: true,
    responses: created(api.Ticket),
    reasons: [...SANDBOX_TARGET, "WORKLOAD_ACCESS_TICKET_TTL_INVALID"],
  },
  listTerminals: {
    method: "GET",
    pattern: `${W}/terminals`,
    summary: "List terminal sessions",
    responses: ok(api.TerminalSessionList),
    reasons: SANDBOX_TARGET,
  },
  createTerminal: {
    method: "POST",
    pattern: `${W}/terminals`,
    summary: "Start a terminal session",
    body: api.TerminalCreate,
    bodyOptional: true,
    responses: created(api.TerminalSession),
    creates: { pattern: `${W}/terminals/:terminal`, from: "/id" },
    reasons: [...SANDBOX_TARGET, "WORKLOAD_TERMINAL_SIZE_INVALID", "WORKLOAD_SANDBOX_SESSION_LIMIT"],
  },
  deleteTerminal: {
    method: "DELETE",
    pattern: `${W}/terminals/:terminal`,
    summary: "End a terminal session",
    responses: noContent,
    reasons: [...SANDBOX_TARGET, "INVALID_PATH", "WORKLOAD_TERMINAL_NOT_FOUND"],
  },
  desktop: {
    method: "GET",
    pattern: `${W}/desktop`,
    summary: "Desktop availability of a sandbox",
    responses: ok(api.Desktop),
    reasons: SANDBOX_TARGET,
  },
  terminalSocket: {
    method: "GET",
    pattern: `${W}/terminals/:terminal/ws`,
    summary: "Terminal WebSocket (binary frames of raw PTY bytes)",
    ...WEBSOCKET,
    reasons: [...SANDBOX_TARGET, "WORKLOAD_ACCESS_TICKET_INVALID", "WORKLOAD_TERMINAL_NOT_FOUND"],
  },
  desktopSocket: {
    method: "GET",
    pattern: `${W}/desktop/ws`,
    summary: "Desktop WebSocket (binary frames of raw RFB bytes)",
    ...WEBSOCKET,
    reasons: [...SANDBOX_TARGET, "WORKLOAD_ACCESS_TICKET_INVALID", "WORKLOAD_SANDBOX_NO_DESKTOP"],
  },
});
