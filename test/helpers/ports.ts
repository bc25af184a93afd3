/** Ports for tests of a service that is not there. */
import { createServer, type AddressInfo } from "node:net";

/** A loopback port nothing listens on (it was free a moment ago): a connection to it is refused. */
export async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  const port = (srv.address() as AddressInfo).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}
