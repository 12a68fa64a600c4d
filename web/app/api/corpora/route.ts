import { forward } from "@/lib/backend";

export const dynamic = "force-dynamic";

// The corpora the signed-in person may read (the agent server answers for the same person as /agent).
export async function GET(): Promise<Response> {
  return forward("/corpora", { method: "GET" });
}
