import { forward } from "@/lib/backend";

export const dynamic = "force-dynamic";

// The person's conversations, the latest first.
export async function GET(): Promise<Response> {
  return forward("/threads", { method: "GET" });
}
