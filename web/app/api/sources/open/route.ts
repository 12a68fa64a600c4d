import { forwardJson } from "@/lib/backend";

export const dynamic = "force-dynamic";

// The cited passage (checked against the person's corpora), and the click recorded.
export async function POST(request: Request): Promise<Response> {
  return forwardJson("/sources/open", request);
}
