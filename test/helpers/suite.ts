/** Values a suite (a test file or describe block) makes before its tests and disposes of after them. */
import { afterAll, beforeAll } from "vitest";

/**
 * Makes the value in beforeAll and disposes of it in afterAll. What it returns stands for the value
 * once made, so that a suite can name it where it is declared (`const server = useTestServer()`)
 * and use it in its tests and later hooks.
 */
export function suiteValue<T extends object>(
  what: string,
  make: () => Promise<T>,
  dispose: (value: T) => Promise<void>,
): T {
  let value: T | undefined;
  beforeAll(async () => {
    value = await make();
  });
  afterAll(async () => {
    if (value) await dispose(value);
  });
  return new Proxy({} as T, {
    get(_target, key) {
      if (key === "then") return undefined;
      if (!value) throw new Error(`${what} is made in beforeAll: use it in tests and hooks`);
      const v: unknown = Reflect.get(value, key);
      return typeof v === "function" ? v.bind(value) : v;
    },
  });
}
