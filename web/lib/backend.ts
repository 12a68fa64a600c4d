// The Python AG-UI server the same-origin route handlers forward to (set by `negentropy web`).
const DEFAULT_AGENT_URL = "http://127.0.0.1:8000";

export function agentServerUrl(): string {
  return (process.env.NE_AGENT_URL || DEFAULT_AGENT_URL).replace(/\/+$/, "");
}

const PASSED_HEADERS = ["content-type", "cache-control"];

/** Forward a request to the agent server; its body streams through untouched (SSE included). */
export async function forward(path: string, init: RequestInit): Promise<Response> {
  const url = `${agentServerUrl()}${path}`;
  let upstream: Response;
  try {
    upstream = await fetch(url, { ...init, cache: "no-store" });
  } catch (error) {
    const reason = error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error);
    return Response.json(
      { error: `The agent server at ${agentServerUrl()} is not reachable (${reason}). Start it with \`negentropy web\`.` },
      { status: 502 },
    );
  }
  const headers = new Headers({ "cache-control": "no-cache, no-transform", "x-accel-buffering": "no" });
  for (const name of PASSED_HEADERS) {
    const value = upstream.headers.get(name);
    if (value) headers.set(name, value);
  }
  return new Response(upstream.body, { status: upstream.status, headers });
}

/** Forward a JSON request (its method and body) to ``path`` on the agent server. */
export async function forwardJson(path: string, request: Request): Promise<Response> {
  return forward(path, { method: request.method, body: await request.text(), headers: { "content-type": "application/json" } });
}
