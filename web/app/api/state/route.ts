import { forward } from "@/lib/backend";

export const dynamic = "force-dynamic";

// A thread's stored conversation (sessions persist in PostgreSQL), so a reload shows it again.
export async function POST(request: Request): Promise<Response> {
  return forward("/agents/state", {
    method: "POST",
    body: await request.text(),
    headers: { "content-type": "application/json" },
  });
}
