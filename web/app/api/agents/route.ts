import { forward } from "@/lib/backend";

export const dynamic = "force-dynamic";

export async function GET(): Promise<Response> {
  return forward("/agents", { method: "GET" });
}
