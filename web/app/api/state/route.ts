import { forwardJson } from "@/lib/backend";

export const dynamic = "force-dynamic";

// A thread's stored conversation (sessions persist in PostgreSQL), so a reload shows it again.
export async function POST(request: Request): Promise<Response> {
  return forwardJson("/agents/state", request);
}
