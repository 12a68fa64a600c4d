import { describe, expect, it } from "vitest";
import { readableError } from "./errors";

describe("readableError", () => {
  it("reads the proxy's JSON error out of an HTTP error", () => {
    const error = new Error('HTTP 502: {"error":"The agent server at http://127.0.0.1:8000 is not reachable (ECONNREFUSED)."}');
    expect(readableError(error)).toBe("The agent server at http://127.0.0.1:8000 is not reachable (ECONNREFUSED). (HTTP 502)");
  });

  it("reads FastAPI's detail", () => {
    expect(readableError(new Error('HTTP 422: {"detail":"threadId missing"}'))).toBe("threadId missing (HTTP 422)");
  });

  it("explains a network failure of the page's own server", () => {
    expect(readableError(new TypeError("Failed to fetch"))).toMatch(/not reachable/);
  });

  it("keeps any other message", () => {
    expect(readableError("boom")).toBe("boom");
  });
});
