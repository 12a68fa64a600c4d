import { forwardJson } from "@/lib/backend";

export const dynamic = "force-dynamic";

// The evidence an answer showed, for the click-through.
export async function POST(request: Request): Promise<Response> {
  return forwardJson("/sources/shown", request);
}
