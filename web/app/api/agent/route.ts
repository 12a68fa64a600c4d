import { forward } from "@/lib/backend";

export const dynamic = "force-dynamic";

// The browser's HttpAgent posts RunAgentInput here; the AG-UI event stream (SSE) comes back as it is produced.
export async function POST(request: Request): Promise<Response> {
  return forward("/agent", {
    method: "POST",
    body: await request.text(),
    headers: { "content-type": "application/json", accept: request.headers.get("accept") ?? "text/event-stream" },
    signal: request.signal,
  });
}
